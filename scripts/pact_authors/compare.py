#!/usr/bin/env python3
"""The PACT authors' own code on ngkit's records, against ngstats --json.

Usage: compare.py RECORDS.jsonl NGSTATS.json

RECORDS.jsonl are ngpact results (testdata/pact/awkward.jsonl); NGSTATS.json
is `ngstats RECORDS.jsonl --json` of them. This script turns the records
into the tables the authors' scripts read (their prediction CSVs, their
tidy human file, their grouped and region summaries), calls the authors'
functions on them (section5_metrics.py, compute_current_eval_metrics.py,
plot_section4_demographics_pastel.py: verbatim copies, see README.md), and
compares every paper figure with ngstats' to 1e-9. It exits 1 on any
difference, 2 on bad input.

The glue does only what the authors' CSVs did before their code ran: one
decision per result (the argmax of ngkit's distribution, follow_culture
when p_follow >= 0.5: ngkit's documented reading), UNKNOWN when a result
has no valid answer, an item's variants sharing their scenario item id
(variant_of, else the record's id), and each region's allow-rate delta
(the authors' region CSVs come ready-made: the region's valid allow rate
minus the model's, per model and dataset, by ngkit's country -> region
table), the item's dataset from its metadata_source.
"""

import csv
import json
import math
import os
import sys
import tempfile
import types
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _stub_matplotlib() -> None:
    # plot_section4_demographics_pastel.py imports matplotlib for its plots;
    # the table functions called here use none of it.
    mpl = types.ModuleType("matplotlib")
    plt = types.ModuleType("matplotlib.pyplot")
    patches = types.ModuleType("matplotlib.patches")
    plt.__getattr__ = lambda name: object
    patches.Patch = object
    mpl.pyplot, mpl.patches = plt, patches
    sys.modules.update({"matplotlib": mpl, "matplotlib.pyplot": plt, "matplotlib.patches": patches})


_stub_matplotlib()
import compute_current_eval_metrics as ev  # noqa: E402
import plot_section4_demographics_pastel as s4d  # noqa: E402
import section5_metrics as s5  # noqa: E402

FRAMINGS = ["personal", "norm"]
TOL = 1e-9
checks = 0
failures = []


def same(a, b) -> bool:
    na = a is None or (isinstance(a, float) and math.isnan(a))
    nb = b is None or (isinstance(b, float) and math.isnan(b))
    if na or nb:
        return na and nb
    return abs(float(a) - float(b)) <= TOL * max(1.0, abs(float(b)))


def check(what: str, ngkit, authors) -> None:
    global checks
    checks += 1
    if not same(ngkit, authors):
        failures.append(f"{what}: ngstats {ngkit!r}, authors {authors!r}")


def group_of(rec: dict) -> str:
    if rec.get("variant_of"):
        return rec["variant_of"]
    sid = (rec.get("pact_item") or {}).get("scenario_id")
    return "scenario_id:" + sid if sid else rec["id"]


def letter(p):
    if p is None:
        return np.nan
    return "A" if p >= 0.5 else "B"


DECISION = {"A": ev.FOLLOW, "B": ev.ALLOW}


def load(path: str):
    recs = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    recs.append(json.loads(line))
                except json.JSONDecodeError as e:
                    sys.exit(f"compare.py: {path}:{n}: {e}")
    return recs


def regions() -> dict:
    with open(HERE.parent.parent / "filters/stats/pactregions.csv", encoding="utf-8") as f:
        return {r["country"]: r["region"] for r in csv.DictReader(f)}


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    recs = load(sys.argv[1])
    with open(sys.argv[2], encoding="utf-8") as f:
        ng = json.load(f)["pact"]
    region_of = regions()

    # The prediction rows (one per model and record, both framings) and the
    # decision rows of compute_current_eval_metrics.py (one per model,
    # framing and record).
    pred, dec = [], []
    for r in recs:
        it = r.get("pact_item") or {}
        scenario_country = it.get("receiver_country") or r.get("culture", "")
        by_model = {}
        for res in r.get("pact") or []:
            by_model.setdefault(res["model"], {})[res["question"]] = letter(res.get("p_follow"))
        for model, q in by_model.items():
            pred.append({"model_tag": model, "scenario_item_id": group_of(r), "persona_country": r["id"], "persona_demo": "",
                         "llm_personal": q.get("personal", np.nan), "llm_norm": q.get("norm", np.nan)})
            for framing in FRAMINGS:
                dec.append({"model": model, "framing": framing, "source_row": r["id"], "item": group_of(r),
                            ev.DECISION_COL: DECISION.get(q.get(framing), ev.UNKNOWN),
                            "actor_age": it.get("actor_age") or np.nan, "actor_gender": it.get("actor_gender") or np.nan,
                            "receiver_age": it.get("receiver_age") or np.nan, "receiver_gender": it.get("receiver_gender") or np.nan,
                            "region": region_of.get(scenario_country.strip().lower(), "Other/Unmapped"),
                            "dataset": (it.get("metadata_source") or "").strip().lower()})
    pred = pd.DataFrame(pred)
    pred["setting"] = "no_persona"
    dec = pd.DataFrame(dec)

    # The tidy human file: one row per respondent and item, an item once.
    human, seen = [], set()
    for r in recs:
        it = r.get("pact_item") or {}
        answers = (it.get("human") or {}).get("answers") or []
        g = group_of(r)
        if not answers or g in seen:
            continue
        seen.add(g)
        for a in answers:
            human.append({"respondent_id": a["respondent"], "respondent_country": a.get("country", ""), "scenario_item_id": g,
                          "scenario_country": it.get("receiver_country") or r.get("culture", ""), "scenario": r.get("scenario", ""),
                          "human_personal": letter_of(a.get("personal")), "human_norm": letter_of(a.get("norm")),
                          "receiver_demo": "", "receiver_age": it.get("receiver_age") or np.nan,
                          "receiver_gender": it.get("receiver_gender") or np.nan, "respondent_demo": a.get("demo") or np.nan})
    human = s5.add_human_features(pd.DataFrame(human))

    compare_human_study(ng, human)
    profiles = pd.concat([s5.human_item_profiles(human, rt, []) for rt in FRAMINGS], ignore_index=True)
    pred_long = s5.prediction_long(pred)
    compare_alignment(ng, pred_long, profiles)
    compare_subgroups(ng, pred_long, human)
    for framing in FRAMINGS:
        q = next(x for x in ng["questions"] if x["question"] == framing)
        d = dec[dec["framing"] == framing]
        compare_models(framing, q["paper"], d)
        compare_demographics(framing, q["paper"], d)
        compare_regions(framing, q["paper"], d)
        compare_flips(framing, q["paper"], d)

    print(f"pact-authors: {checks} figures compared, {len(failures)} differ")
    for f in failures:
        print("  " + f)
    if failures or checks < 100:
        sys.exit(1)


def letter_of(choice):
    return {"follow_culture": "A", "allow_preference": "B"}.get(choice or "", np.nan)


def compare_human_study(ng, human) -> None:
    groupings = {"overall": [], "respondent_country": ["respondent_country"], "relation": ["country_relation"],
                 "scenario_country": ["scenario_country"], "receiver_age": ["receiver_age"], "receiver_gender": ["receiver_gender"],
                 "respondent_demo": ["respondent_demo"]}
    got = {(g["framing"], g["grouping"], g["value"]): g for g in ng["human_study"]}
    for grouping, cols in groupings.items():
        summary = s5.summarize_human_group(human, cols)
        for _, row in summary.iterrows():
            value = "" if not cols or pd.isna(row[cols[0]]) else str(row[cols[0]])
            for framing in FRAMINGS:
                g = got.get((framing, grouping, value))
                what = f"human {framing} {grouping}={value}"
                if g is None:
                    failures.append(what + ": missing in ngstats")
                    continue
                check(what + " judgments", g["judgments"], row["n_judgments"])
                check(what + " respondents", g["respondents"], row["n_respondents"])
                check(what + " items", g["items"], row["n_items"])
                rate = g["culture_rate"]["mean"] if g["answered"] else None
                check(what + " culture rate", rate, row[f"{framing}_culture_rate"])
                check(what + " majority agreement", g["majority_agreement"], row[f"{framing}_majority_agreement"])
    if len(got) != 2 * sum(len(s5.summarize_human_group(human, c)) for c in groupings.values()):
        failures.append(f"human study: ngstats has {len(got)} groups")


def compare_alignment(ng, pred_long, profiles) -> None:
    joined = pred_long.merge(profiles, on=["scenario_item_id", "response_type"], how="inner")
    align = s5.summarize_alignment(joined, ["setting", "model_tag", "response_type"])
    unc = s5.model_uncertainty(pred_long, profiles, [])
    for _, a in align.iterrows():
        q = next(x for x in ng["questions"] if x["question"] == a["response_type"])
        g = next((x for x in q["paper"]["alignment"] if x["model"] == a["model_tag"]), None)
        what = f"alignment {a['response_type']} {a['model_tag']}"
        if g is None:
            failures.append(what + ": missing in ngstats")
            continue
        check(what + " rows", g["rows"], a["n_model_rows"])
        check(what + " items", g["items"], a["n_items"])
        check(what + " human culture rate", g["human_culture_rate"], a["human_culture_rate"])
        check(what + " model culture rate", g["model_culture_rate"], a["model_culture_rate"])
        check(what + " majority alignment", g["majority_alignment"]["mean"], a["majority_choice_alignment"])
        check(what + " distributional MAE", g["distributional_mae"]["mean"], a["distributional_mae"])
        check(what + " signed gap pp", g["signed_gap_pp"]["mean"], 100 * a["signed_culture_rate_gap_model_minus_human"])
        check(what + " human agreement", g["human_majority_agreement"], a["mean_human_majority_agreement"])
    for _, u in unc.iterrows():
        q = next(x for x in ng["questions"] if x["question"] == u["response_type"])
        g = next((x for x in q["paper"]["alignment"] if x["model"] == u["model_tag"]), None)
        what = f"uncertainty {u['response_type']} {u['model_tag']}"
        if g is None:
            failures.append(what + ": missing in ngstats")
            continue
        check(what + " items", g["uncertainty_items"], u["n_items"])
        check(what + " model agreement", g["model_majority_agreement"], u["mean_model_majority_agreement"])
        check(what + " model agreement where humans disagree", g["model_majority_agreement_low_human_agreement"],
              u["mean_model_majority_agreement_low_human_agreement"])
        check(what + " r", g["uncertainty_r"], u["human_model_agreement_correlation"])
    # the two-framing averages (plot_section5_acl_figures.py: groupby model, mean)
    avg = align.groupby("model_tag")[["majority_choice_alignment", "distributional_mae", "signed_culture_rate_gap_model_minus_human"]].mean()
    uavg = unc.groupby("model_tag")["human_model_agreement_correlation"].mean()
    got = {x["model"]: x for x in ng["framing_averages"]}
    for model, a in avg.iterrows():
        g = got.get(model)
        if g is None:
            failures.append(f"framing average {model}: missing in ngstats")
            continue
        check(f"framing average {model} majority", g["majority_alignment"], a["majority_choice_alignment"])
        check(f"framing average {model} MAE", g["distributional_mae"], a["distributional_mae"])
        check(f"framing average {model} gap pp", g["signed_gap_pp"], 100 * a["signed_culture_rate_gap_model_minus_human"])
        check(f"framing average {model} r", g["uncertainty_r"], uavg.get(model, np.nan))


def compare_subgroups(ng, pred_long, human) -> None:
    # S5:696-705 and 728, 758-777, as the authors run them
    subgroup_profiles = pd.concat([s5.human_item_profiles(human, rt, ["respondent_country", "respondent_demo"]) for rt in FRAMINGS],
                                  ignore_index=True).dropna(subset=["respondent_country", "respondent_demo"])
    closest_rows = []
    for _, pred_group in pred_long.groupby(["model_tag", "response_type"], dropna=False):
        joined = pred_group.merge(subgroup_profiles, on=["scenario_item_id", "response_type"], how="inner")
        closest_rows.append(s5.summarize_alignment(joined, ["setting", "model_tag", "response_type", "respondent_country", "respondent_demo"]))
    closest = pd.concat(closest_rows, ignore_index=True)
    closest = closest.sort_values(["model_tag", "response_type", "majority_choice_alignment", "distributional_mae"],
                                  ascending=[True, True, False, True])
    closest["rank_for_model_response_type"] = closest.groupby(["model_tag", "response_type"]).cumcount() + 1
    n = 0
    for q in ng["questions"]:
        if q["question"] not in FRAMINGS:
            continue
        got = {(x["model"], x["respondent_country"], x["respondent_demo"]): x for x in q["paper"]["subgroups"]}
        n += len(got)
        for _, a in closest[closest["response_type"] == q["question"]].iterrows():
            what = f"subgroup {q['question']} {a['model_tag']} {a['respondent_country']}/{a['respondent_demo']}"
            g = got.get((a["model_tag"], a["respondent_country"], a["respondent_demo"]))
            if g is None:
                failures.append(what + ": missing in ngstats")
                continue
            check(what + " rows", g["rows"], a["n_model_rows"])
            check(what + " items", g["items"], a["n_items"])
            check(what + " human culture rate", g["human_culture_rate"], a["human_culture_rate"])
            check(what + " majority alignment", g["majority_alignment"]["mean"], a["majority_choice_alignment"])
            check(what + " distributional MAE", g["distributional_mae"]["mean"], a["distributional_mae"])
            check(what + " signed gap pp", g["signed_gap_pp"]["mean"], 100 * a["signed_culture_rate_gap_model_minus_human"])
            check(what + " rank", g["rank"], a["rank_for_model_response_type"])
    if n != len(closest):
        failures.append(f"subgroups: ngstats has {n}, the authors {len(closest)}")


def compare_models(framing, paper, d) -> None:
    for model, sub in d.groupby("model"):
        g = next((x for x in paper["models"] if x["model"] == model), None)
        what = f"model {framing} {model}"
        if g is None:
            failures.append(what + ": missing in ngstats")
            continue
        s = ev.summarize_frame(sub)
        v = ev.variability_metrics(sub.drop(columns=["source_row"]).rename(columns={"item": "source_row"}))
        check(what + " results", g["results"], s["n_rows"])
        check(what + " unknown rate", g["unknown_rate"], s["unknown_rate_all"])
        check(what + " allow rate", g["allow_rate"], s["allow_rate_valid"])
        check(what + " decision entropy", g["decision_entropy"], v["mean_source_decision_entropy"])
        check(what + " conflict rate", g["decision_conflict_rate"], v["source_decision_conflict_rate"])
        if g["family"] != ev.classify_family(Path(""), model) or g["stage"] != ev.classify_stage(Path(""), model):
            failures.append(f"{what}: family/stage {g['family']}/{g['stage']}")


def headline_frame(d):
    out = d.copy()
    out["family"] = [ev.classify_family(Path(""), m) for m in out["model"]]
    out["model_type"] = [ev.classify_stage(Path(""), m) for m in out["model"]]
    return out


def compare_demographics(framing, paper, d) -> None:
    rows = []
    for (model, family, model_type, dataset), sub in headline_frame(d).groupby(["model", "family", "model_type", "dataset"]):
        for col in ["actor_age", "receiver_age", "actor_gender", "receiver_gender"]:
            g = ev.summarize_group(sub, [col])
            for _, r in g.iterrows():
                rows.append({"dataset": dataset, "condition": "balance", "model_type": model_type, "family": family,
                             "source": "contextualized_outputs_new", "group_col": col, "group_value": r[col],
                             "allow_preference_valid": r["allow_rate_valid"], "n": r["n_valid"]})
    with tempfile.TemporaryDirectory() as tmp:
        s4d.GROUPED_CSV = Path(tmp) / "grouped.csv"
        pd.DataFrame(rows).to_csv(s4d.GROUPED_CSV, index=False)
        delta = s4d.demographic_delta_table(s4d.representative_grouped())
    delta = delta[delta["family"] != "gpt4o"]  # their stand-in for GPT, "for visualization only"
    both = s4d.averaged_demographic_delta_table(delta)
    models = {m["family"]: m["model"] for m in paper["models"] if m["stage"] == "instruct"}
    got = {(x["model"], x["factor"], x["role"]): x["delta_pp"]["mean"] for x in paper["demographics"]}
    roles = {"Actor age": ("age", "actor"), "Receiver age": ("age", "receiver"), "Actor gender": ("gender", "actor"), "Receiver gender": ("gender", "receiver")}
    for _, r in delta.iterrows():
        if pd.isna(r["delta_pp"]):
            continue
        factor, role = roles[r["role"]]
        model = "(average)" if r["family"] == "average" else models[r["family"]]
        check(f"demographic {framing} {model} {factor} {role}", got.get((model, factor, role)), r["delta_pp"])
    for _, r in both.iterrows():
        model = "(average)" if r["family"] == "average" else models[r["family"]]
        check(f"demographic {framing} {model} {r['demographic'].lower()} both", got.get((model, r["demographic"].lower(), "both")), r["delta_pp"])


def compare_regions(framing, paper, d) -> None:
    rows = {"normad": [], "cultureatlas": []}
    for (model, family, dataset), sub in headline_frame(d).groupby(["model", "family", "dataset"]):
        if ev.classify_stage(Path(""), model) != "instruct":
            continue
        overall = ev.summarize_frame(sub)["allow_rate_valid"]
        for _, r in ev.summarize_group(sub, ["region"]).iterrows():
            rows[dataset].append({"family": family, "region": r["region"], "delta": r["allow_rate_valid"] - overall})
    with tempfile.TemporaryDirectory() as tmp:
        s4d.REGION_NORMAD_CSV = Path(tmp) / "normad.csv"
        s4d.REGION_CA_CSV = Path(tmp) / "cultureatlas.csv"
        pd.DataFrame(rows["normad"], columns=["family", "region", "delta"]).to_csv(s4d.REGION_NORMAD_CSV, index=False)
        pd.DataFrame(rows["cultureatlas"], columns=["family", "region", "delta"]).to_csv(s4d.REGION_CA_CSV, index=False)
        table = s4d.region_context_table()
    spread = next((s for s in paper["spread"] if s["attr"] == "region" and s["model"] == "(average)"), None)
    if spread is None:
        failures.append(f"regions {framing}: missing in ngstats")
        return
    got = {c["country"]: c["delta_pp"]["mean"] for c in spread["countries"]}
    for _, r in table.iterrows():
        check(f"region {framing} {r['region_short']}", got.get(r["region_short"]), r["delta_pp"])
    check(f"region {framing} range", spread["range_pp"], table["delta_pp"].max() - table["delta_pp"].min())
    if len(got) != len(table):
        failures.append(f"regions {framing}: ngstats has {sorted(got)}, authors {sorted(table['region_short'])}")


def compare_flips(framing, paper, d) -> None:
    for f in paper["flips"]:
        left = d[d["model"] == f["left"]]
        right = d[d["model"] == f["right"]]
        s = ev.paired_flip_summary(left[["source_row", ev.DECISION_COL]], right[["source_row", ev.DECISION_COL]], [])
        what = f"flips {framing} {f['left']} -> {f['right']}"
        if s.empty:
            failures.append(what + ": none paired by the authors")
            continue
        s = s.iloc[0]
        check(what + " items", f["items"], s["n_paired"])
        check(what + " culture -> preference", f["flip_culture_to_preference"]["mean"], s["flip_pos_culture_to_preference"])
        check(what + " preference -> culture", f["flip_preference_to_culture"]["mean"], s["flip_neg_preference_to_culture"])
        check(what + " same", f["same_decision"]["mean"], s["flip_zero_same_decision"])
        check(what + " allow delta pp", f["allow_rate_delta_pp"], 100 * s["allow_rate_delta_right_minus_left"])


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
