"""Argilla's own SDK (argilla 2.8.0) on ngkit's review export, without a server.

Builds the rg.Settings the quality-loop recipe gives for ngcat --to argilla
(and checks it with the SDK's Settings.validate), loads every exported
record with rg.Record.from_dict, checks that each field, metadata key and
suggestion names something the settings have (a suggestion's value among
its question's labels), adds reviewers' rg.Response objects in every status
(submitted, draft, discarded), and writes the records the three ways the SDK
exports them: to_list(flatten=True) and to_list(flatten=False) through
json.dump(default=str), and to_datasets().to_json (JSON Lines). Then ngcat
--from argilla reads each file back and this script checks the reviewed
records and ngstats' figures against the responses it made.

The SDK's client checks its server when it is made (GET /api/v1/me), and
every settings object asks for a client: argilla-server needs Elasticsearch
or OpenSearch, which these machines do not run, so the client here skips
that one check and points at a closed port; anything that would push or
pull (Dataset.create, records.log, ...) fails loudly instead of passing.

Usage: python check.py --ngkit BIN --export argilla.json --out DIR [--fixtures DIR]
"""

import argparse
import json
import os
import subprocess
import sys
import types
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from review_agreement import agreement  # noqa: E402

import argilla as rg  # noqa: E402
from argilla.records._io._datasets import HFDatasetsIO
from argilla.records._io._generic import GenericIO


class OfflineArgilla(rg.Argilla):
    """A client whose connection check is skipped: no server is there."""

    def _validate_connection(self):
        pass


SETS = {
    "norm": ["adhered", "violated", "not_relevant"],
    "intent": "ACK AGR DIS APO THX EMP JUS SUG QUE CRT NR".split(),
    "emotion": "anger disgust fear joy sadness surprise neutral".split(),
    "stage": "context violation recognition repair resolution".split(),
}
# Two reviewers, with fixed ids so that the fixtures are the same each run.
U1 = uuid.UUID("00000000-0000-4000-8000-000000000001")
U2 = uuid.UUID("00000000-0000-4000-8000-000000000002")

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg, file=sys.stderr)


def settings_for(tasks, n):
    """The quality-loop recipe (docs/quality-loop.md), as the SDK builds it."""
    return rg.Settings(
        fields=[rg.ChatField(name="dialogue"), rg.TextField(name="norm", required=False),
                rg.TextField(name="scenario", required=False), rg.TextField(name="situation", required=False)],
        questions=[rg.LabelQuestion(name="verdict", labels=["accept", "reject"]), rg.TextQuestion(name="comment", required=False)]
        + [rg.LabelQuestion(name=f"{t}_{i}", title=f"turn {i}: {t}", labels=SETS[t], required=False) for i in range(n) for t in tasks],
        metadata=[rg.TermsMetadataProperty(name=k) for k in ["culture", "dialogue_type", "category", "norm_id", "speakers"]]
        + [rg.IntegerMetadataProperty(name="turns")])


def other(label, task):
    return next(x for x in SETS[task] if x != label)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ngkit", required=True)
    ap.add_argument("--export", required=True, help="ngcat --to argilla output")
    ap.add_argument("--out", required=True)
    ap.add_argument("--fixtures", help="also copy the SDK's files here")
    a = ap.parse_args()
    rg.Argilla._set_default(OfflineArgilla(api_url="http://127.0.0.1:9", api_key="offline"))

    exported = json.load(open(a.export, encoding="utf-8"))
    tasks = sorted({q.rsplit("_", 1)[0] for r in exported for q in r["suggestions"]}, key=list(SETS).index)
    n = max(len(r["fields"]["dialogue"]) for r in exported)
    settings = settings_for(tasks, n)
    settings.validate()
    settings.to_json(os.path.join(a.out, "settings.json"))
    questions = {q.name: q for q in settings.questions}
    fields = {f.name for f in settings.fields}
    meta = {m.name for m in settings.metadata}

    records = []
    for d in exported:
        r = rg.Record.from_dict(d)
        rid = r.id
        for k in d["fields"]:
            if k not in fields:
                fail(f"{rid}: field {k} is not in the settings")
        for k in d["metadata"]:
            if k not in meta:
                fail(f"{rid}: metadata {k} is not in the settings")
        if r.fields["dialogue"] != d["fields"]["dialogue"]:
            fail(f"{rid}: the SDK's dialogue field differs from the export's")
        for s in r.suggestions:
            q = questions.get(s.question_name)
            if q is None:
                fail(f"{rid}: suggestion {s.question_name} has no question")
            elif s.value not in q.labels:
                fail(f"{rid}: suggestion {s.question_name}={s.value} is not one of {q.labels}")
        if len(r.suggestions) != len(d["suggestions"]):
            fail(f"{rid}: {len(r.suggestions)} suggestions in the SDK's record, {len(d['suggestions'])} exported")
        records.append(r)
    if len(records) < 3:
        fail(f"{len(records)} records: want at least 3")
        return
    print(f"argilla {rg.__version__}: settings with {len(settings.questions)} questions; {len(records)} records, "
          f"{sum(len(r.suggestions) for r in records)} suggestions loaded with rg.Record.from_dict")

    # The review. expect: per record id, the labels_human and review that
    # counting submitted answers only must give.
    def sugg(r, q):
        return next(s.value for s in r.suggestions if s.question_name == q)

    def respond(r, user, status, answers):
        for q, v in answers.items():
            r.responses.add(rg.Response(q, v, user_id=user, status=status))

    r0, r1, r2 = records[:3]
    expect = {}
    # r0: both submit; they relabel norm_1 alike, disagree on the verdict
    # (a tie rejects); u1 comments.
    fix = other(sugg(r0, "norm_1"), "norm")
    respond(r0, U1, "submitted", {"verdict": "reject", "norm_1": fix, "comment": "turn 1 is rude here"})
    respond(r0, U2, "submitted", {"verdict": "accept", "norm_1": fix})
    expect[r0.id] = {"human": {1: {"norm": fix}}, "verdict": "reject", "reviewers": 2, "comments": ["turn 1 is rude here"]}
    # r1: u1 only saved a draft, u2 discarded the record: no review.
    respond(r1, U1, "draft", {"verdict": "accept", "norm_0": other(sugg(r1, "norm_0"), "norm")})
    respond(r1, U2, "discarded", {"verdict": "reject"})
    expect[r1.id] = {"human": {}, "verdict": None, "reviewers": None, "comments": None}
    # r2: u1 submits, keeping intent_2 as suggested; u2's draft does not count.
    keep = sugg(r2, "intent_2")
    respond(r2, U1, "submitted", {"verdict": "accept", "intent_2": keep})
    respond(r2, U2, "draft", {"verdict": "reject", "intent_2": other(keep, "intent")})
    expect[r2.id] = {"human": {2: {"intent": keep}}, "verdict": "accept", "reviewers": 1, "comments": None}
    for r in records[3:]:
        expect[r.id] = {"human": {}, "verdict": None, "reviewers": None, "comments": None}
    # The nested form has no status: every answer counts there.
    nested = json.loads(json.dumps(expect))
    nested[r1.id] = {"human": {0: {"norm": other(sugg(r1, "norm_0"), "norm")}}, "verdict": "reject", "reviewers": 2, "comments": None}
    nested[r2.id] = {"human": {2: {"intent": keep}}, "verdict": "reject", "reviewers": 2, "comments": None}

    files = {
        "argilla_sdk_flat.json": GenericIO.to_list(records, flatten=True),
        "argilla_sdk_nested.json": GenericIO.to_list(records, flatten=False),
    }
    for name, rows in files.items():
        with open(os.path.join(a.out, name), "w", encoding="utf-8") as f:
            json.dump(rows, f, default=str)
    # to_datasets reads only the dataset's schema (its settings' fields and
    # questions); a Dataset object itself needs the server.
    hf = HFDatasetsIO.to_datasets(records, types.SimpleNamespace(schema=settings.schema))
    hf.to_json(os.path.join(a.out, "argilla_sdk_datasets.jsonl"))

    left = "argilla: 3 responses left out (2 draft, 1 discarded): only submitted answers count"
    # to_datasets() writes each label question's suggestion as a class
    # number (names only in the dataset's features): ngcat must say so and
    # keep the reviewers' answers.
    indexed = f"has the suggestions of {len(records)} records as class numbers"
    for name, want, notes, labels in [
        ("argilla_sdk_flat.json", expect, [left], True),
        ("argilla_sdk_datasets.jsonl", expect, [left, indexed], False),
        ("argilla_sdk_nested.json", nested, ["is the nested export"], True),
    ]:
        check_import(a, name, want, notes, labels)
    if a.fixtures:
        for name in list(files) + ["argilla_sdk_datasets.jsonl", "settings.json"]:
            dst = "argilla_sdk_settings.json" if name == "settings.json" else name
            with open(os.path.join(a.out, name), "rb") as src, open(os.path.join(a.fixtures, dst), "wb") as out:
                out.write(src.read())


def check_import(a, name, expect, notes, labels):
    path = os.path.join(a.out, name)
    reviewed = path + ".reviewed.jsonl"
    p = subprocess.run([a.ngkit, "ngcat", "--from", "argilla", path, "-o", reviewed], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{name}: ngcat exit {p.returncode}: {p.stderr.strip()}")
        return
    for note in notes:
        if note not in p.stderr:
            fail(f"{name}: ngcat said {p.stderr.strip()!r}, want a line with {note!r}")
    recs = [json.loads(line) for line in open(reviewed, encoding="utf-8")]
    if [r["id"] for r in recs] != list(expect):
        fail(f"{name}: ids {[r['id'] for r in recs]}, want {list(expect)}")
        return
    pairs = {}
    for r in recs:
        want = expect[r["id"]]
        for i, t in enumerate(r["turns"]):
            got = t.get("labels_human") or {}
            w = want["human"].get(i, want["human"].get(str(i), {}))
            if got != w:
                fail(f"{name}: {r['id']} turn {i}: labels_human {got}, want {w}")
            if not labels:
                if t.get("labels"):
                    fail(f"{name}: {r['id']} turn {i}: model labels {t['labels']} read from class numbers")
                continue
            for task, l in got.items():
                pairs.setdefault(task, []).append((t["labels"][task], l))
        rv = r.get("review") or {}
        if rv.get("verdict") != want["verdict"] or rv.get("reviewers") != want["reviewers"] or rv.get("comments") != want["comments"]:
            fail(f"{name}: {r['id']}: review {rv}, want {want}")
    p = subprocess.run([a.ngkit, "ngstats", reviewed, "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{name}: ngstats exit {p.returncode}: {p.stderr.strip()}")
        return
    report = json.loads(p.stdout)
    for ok, line in agreement(name, report.get("review", {}), pairs):
        if not ok:
            fail(line)
    v = next((x for x in report.get("review", {}).get("verdicts", []) if x["group"] == "all"), None)
    reviewed_n = sum(1 for w in expect.values() if w["verdict"])
    rejected = sum(1 for w in expect.values() if w["verdict"] == "reject")
    if not v or v["reviewed"] != reviewed_n or v["rejected"] != rejected:
        fail(f"{name}: ngstats verdicts {v}, want {reviewed_n} reviewed, {rejected} rejected")
    print(f"{name}: read back by ngcat --from argilla: {len(recs)} records, {reviewed_n} reviewed, {rejected} rejected, as submitted")


if __name__ == "__main__":
    main()
    if failures:
        print(f"{len(failures)} failures", file=sys.stderr)
        sys.exit(1)
