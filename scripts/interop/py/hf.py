"""Hugging Face `datasets` and `huggingface_hub` on what ngkit writes.

    python hf.py folder --jsonl J.jsonl DIR...     load_dataset(DIR) on ngcat --hf folders
    python hf.py parquet --jsonl J.jsonl FILE...  Dataset.from_parquet on -o x.parquet files
    python hf.py json --jsonl J.jsonl FILE...     load_dataset("json", data_files=FILE)
    python hf.py write SRC.parquet SRC.jsonl OUT  datasets writes ngkit's records (to_parquet,
                                                  to_json) into OUT/, for ngcat to read back
    python hf.py back --jsonl SRC.jsonl BACK...   what ngcat read back from those equals SRC
    python hf.py run MODE:J.jsonl:FILE...         several checks in one process

folder: the card's configs and splits are what load_dataset finds, each
split's num_rows its num_examples, the features those of the card's
dataset_info and of every shard's schema, every value that of the JSONL
(by id; with splits the JSONL's split field names the record's split), and
huggingface_hub's DatasetCard.load and DatasetCardData parse the card
without a warning and give its metadata back unchanged. Run with
HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 and HF_HOME in a temporary folder.
Exits 1 on a mismatch, 2 on bad usage or an unreadable file.
"""

import argparse
import contextlib
import glob
import json
import logging
import os
import sys
import warnings

import datasets
import huggingface_hub
import pyarrow.parquet as pq
import yaml
from datasets import Dataset, Features, load_dataset
from huggingface_hub import DatasetCard, DatasetCardData

from values import Checker, from_columns, json_norm


class Warnings(logging.Handler):
    """Every warning the libraries raise or log while it is active."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.seen = []

    def emit(self, rec):
        self.seen.append(f"{rec.name}: {rec.getMessage()}")


@contextlib.contextmanager
def no_warnings(c, what):
    h = Warnings()
    loggers = [logging.getLogger(n) for n in ("huggingface_hub", "datasets", "fsspec")]
    for lg in loggers:
        lg.addHandler(h)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            for lg in loggers:
                lg.removeHandler(h)
    for w in caught:
        h.seen.append(f"{w.category.__name__}: {w.message}")
    for s in h.seen:
        c.fail(f"{what}: warning: {s}")


def front_matter(path):
    text = open(path, encoding="utf-8").read()
    if not text.startswith("---\n"):
        raise ValueError(f"{path}: no YAML front matter")
    return yaml.safe_load(text[4 : text.index("\n---\n", 4)])


def check_card(c, d):
    """huggingface_hub parses the card without a warning and its metadata
    round-trips: through DatasetCard.load, DatasetCardData and to_yaml."""
    path = os.path.join(d, "README.md")
    meta = front_matter(path)
    with no_warnings(c, f"huggingface_hub DatasetCard.load {path}"):
        card = DatasetCard.load(path)
        data = card.data.to_dict()
        again = DatasetCardData(**meta).to_dict()
        reparsed = DatasetCard(str(card)).data.to_dict()
        yaml_back = yaml.safe_load(card.data.to_yaml())
    for what, got in (("DatasetCard.load(...).data", data), ("DatasetCardData(**meta)", again),
                      ("DatasetCard(str(card))", reparsed), ("card.data.to_yaml()", yaml_back)):
        if got != meta:
            keys = sorted(k for k in set(got) | set(meta) if got.get(k) != meta.get(k))
            c.fail(f"huggingface_hub {path}: {what} differs from the card's YAML in {keys}")
    if "ngstats" not in card.text and "|" not in card.text:
        c.fail(f"huggingface_hub {path}: the card's text (the ngstats report) is missing")
    return meta


def check_folder(c, d):
    meta = check_card(c, d)
    info = meta["dataset_info"]
    infos = info if isinstance(info, list) else [info]
    configs = {x["config_name"]: x for x in meta["configs"]}
    with no_warnings(c, f"datasets get_dataset_config_names {d}"):
        names = datasets.get_dataset_config_names(d)
    if sorted(names) != sorted(configs):
        c.fail(f"datasets {d}: configs {names}, the card declares {sorted(configs)}")
    shards = sorted(glob.glob(os.path.join(d, "data", "*.parquet")))
    rows = []
    for name, cfg in configs.items():
        inf = next((x for x in infos if x.get("config_name", "default") == name), None)
        if inf is None:
            c.fail(f"card {d}: no dataset_info for config {name}")
            continue
        card_features = Features._from_yaml_list(inf["features"])
        with no_warnings(c, f"datasets load_dataset {d}"):
            dd = load_dataset(d, name)
        want_splits = [s["split"] for s in cfg["data_files"]]
        if sorted(dd) != sorted(want_splits):
            c.fail(f"datasets {d}: splits {sorted(dd)}, the card declares {want_splits}")
        sizes = {s["name"]: s["num_examples"] for s in inf.get("splits", [])}
        for split, ds in dd.items():
            if ds.features != card_features:
                c.fail(f"datasets {d} {split}: features differ from the card's dataset_info:\n  got  {ds.features}\n  card {card_features}")
            if ds.num_rows != sizes.get(split):
                c.fail(f"datasets {d} {split}: {ds.num_rows} rows, the card's num_examples {sizes.get(split)}")
            for r in ds.to_list():
                r = from_columns(r)
                r["split"] = split if len(dd) > 1 else r.get("split")
                if r["split"] is None:
                    del r["split"]
                rows.append(r)
        for p in shards:
            f = Features.from_arrow_schema(pq.read_schema(p))
            if f != card_features:
                c.fail(f"{p}: the shard's schema as datasets features differs from the card's dataset_info")
    c.compare("datasets.load_dataset", d, rows, shape=lambda r: r)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["folder", "parquet", "json", "write", "back", "run"])
    ap.add_argument("--jsonl")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("args", nargs="+")
    a = ap.parse_args()
    if a.mode == "write":
        src_parquet, src_jsonl, out = a.args
        os.makedirs(out, exist_ok=True)
        ds = Dataset.from_parquet(src_parquet)
        ds.to_parquet(os.path.join(out, "from-parquet.parquet"))
        ds.to_json(os.path.join(out, "from-parquet.jsonl"), force_ascii=False)
        ds = load_dataset("json", data_files=src_jsonl, split="train")
        ds.to_parquet(os.path.join(out, "from-json.parquet"))
        ds.to_json(os.path.join(out, "from-json.jsonl"), force_ascii=False)
        return
    if a.mode == "run":
        specs = [x.split(":", 2) for x in a.args]
        if any(len(x) != 3 for x in specs):
            raise SystemExit("hf.py run: want MODE:JSONL:FILE arguments")
    elif not a.jsonl:
        raise SystemExit("hf.py: --jsonl is required")
    else:
        specs = [(a.mode, a.jsonl, f) for f in a.args]
    checkers = {}
    for mode, jsonl, f in specs:
        if jsonl not in checkers:
            checkers[jsonl] = Checker(jsonl, a.verbose)
        check(checkers[jsonl], mode, f)
    failures = [m for c in checkers.values() for m in c.failures]
    if failures:
        for m in failures:
            print(f"FAIL {m}", file=sys.stderr)
        print(f"hf.py: {len(failures)} mismatch(es)", file=sys.stderr)
        sys.exit(1)
    for jsonl, c in checkers.items():
        print(f"datasets {datasets.__version__}, huggingface_hub {huggingface_hub.__version__}: {c.checked} check(s) agree with {jsonl} on every value of {len(c.want)} records")


def check(c, mode, f):
    if mode == "folder":
        check_folder(c, f)
    elif mode == "parquet":
        with no_warnings(c, f"datasets Dataset.from_parquet {f}"):
            ds = Dataset.from_parquet(f)
        c.compare("datasets.Dataset.from_parquet", f, ds.to_list())
    elif mode == "back":
        with open(f, encoding="utf-8") as fh:
            rows = [json.loads(line) for line in fh if line.strip()]
        # The files came through datasets' JSON code, which rounds floats
        # to 10 decimals (pandas' ujson and to_json defaults): see json.
        c.compare("ngcat", f, rows, shape=json_norm, tol=5e-11)
    elif mode == "json":
        with no_warnings(c, f"datasets load_dataset json {f}"):
            ds = load_dataset("json", data_files=f, split="train")
        # datasets 5.2 rounds floats to 10 decimals here: when a field's
        # objects have different keys in different lines (ngkit's JSONL
        # omits empty fields), it re-encodes the lines with pandas'
        # ujson_dumps at its default double_precision=10
        # (packaged_modules/json, find_mixed_struct_types_field_paths).
        # Its defect, not ngkit's: floats may differ by 5e-11 here only.
        c.compare('datasets.load_dataset("json")', f, ds.to_list(), tol=5e-11)
    else:
        raise SystemExit(f"hf.py: unknown check {mode}")

if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception as e:  # an unreadable file or folder: exit 2
        print(f"hf.py: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(2)
