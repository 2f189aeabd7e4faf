#!/usr/bin/env python3
"""The PACT authors' own code on ngkit's records, against ngstats --json.

Usage: compare.py RECORDS.jsonl NGSTATS.json

RECORDS.jsonl are ngpact results (testdata/pact/awkward.jsonl); NGSTATS.json
is `ngstats RECORDS.jsonl --json` of them. This script turns the records
into the tables the authors' scripts read (their prediction CSVs, their
tidy human file, their grouped and region summaries), calls the authors'
functions on them (section5_metrics.py, compute_current_eval_metrics.py,
plot_section4_demographics_pastel.py: verbatim copies, see README.md), and
compares every paper figure with ngstats' to 1e-9 (the human regressions'
coefficients, standard errors, z and p to REG_TOL, see there). It exits 1
on any difference, 2 on bad input.

The glue does only what the authors' CSVs did before their code ran: one
decision per result (the argmax of ngkit's distribution, follow_culture
when p_follow >= 0.5: ngkit's documented reading), UNKNOWN when a result
has no valid answer, an item's variants sharing their scenario item id
(variant_of, else the record's id), and each region's allow-rate delta
(the authors' region CSVs come ready-made: the region's valid allow rate
minus the model's, per model and dataset, by ngkit's country -> region
table), the item's dataset from its metadata_source. Records with
pact_item.persona_country or persona_demo are the authors' persona setting:
they go to a prediction file of that setting, read by the authors'
read_prediction_files, and to none of the no_persona tables.
"""

import csv
import json
import math
import os
import re
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


def iv(x):
    """An interval's mean, None when it has no unit (JSON's undefined)."""
    return x["mean"] if x["n"] else None


def check_alignment(what: str, g: dict, a) -> None:
    """One alignment row of ngstats (g) against summarize_alignment's (a)."""
    check(what + " rows", g["rows"], a["n_model_rows"])
    check(what + " items", g["items"], a["n_items"])
    check(what + " human culture rate", g["human_culture_rate"], a["human_culture_rate"])
    check(what + " model culture rate", g["model_culture_rate"], a["model_culture_rate"])
    check(what + " majority alignment", g["majority_alignment"]["mean"], a["majority_choice_alignment"])
    check(what + " distributional MAE", iv(g["distributional_mae"]), a["distributional_mae"])
    check(what + " signed gap pp", iv(g["signed_gap_pp"]), 100 * a["signed_culture_rate_gap_model_minus_human"])
    check(what + " human agreement", g["human_majority_agreement"], a["mean_human_majority_agreement"])


def check_uncertainty(what: str, g: dict, u) -> None:
    """One uncertainty row of ngstats (g) against model_uncertainty's (u)."""
    check(what + " items", g["uncertainty_items"], u["n_items"])
    check(what + " model agreement", g["model_majority_agreement"], u["mean_model_majority_agreement"])
    check(what + " model agreement where humans disagree", g["model_majority_agreement_low_human_agreement"],
          u["mean_model_majority_agreement_low_human_agreement"])
    check(what + " r", g["uncertainty_r"], u["human_model_agreement_correlation"])


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
    with open(HERE.parent.parent / "filters/stats/pactstats/pactregions.csv", encoding="utf-8") as f:
        return {r["country"]: r["region"] for r in csv.DictReader(f)}


def main() -> None:
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    every = load(sys.argv[1])
    with open(sys.argv[2], encoding="utf-8") as f:
        ng = json.load(f)["pact"]
    region_of = regions()
    # The persona-prompted run is the authors' persona setting, apart
    # from every other figure (their no_persona files).
    recs = [r for r in every if not is_persona(r)]
    persona = [r for r in every if is_persona(r)]

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
    for r in every:
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
                          "receiver_gender": it.get("receiver_gender") or np.nan, "respondent_demo": a.get("demo") or np.nan,
                          "respondent_age_bucket": a.get("age") or np.nan, "respondent_gender": a.get("gender") or np.nan})
    human = s5.add_human_features(pd.DataFrame(human))

    compare_human_study(ng, human)
    profiles = pd.concat([s5.human_item_profiles(human, rt, []) for rt in FRAMINGS], ignore_index=True)
    pred_long = s5.prediction_long(pred)
    compare_alignment(ng, pred_long, profiles)
    compare_subgroups(ng, pred_long, human)
    compare_persona(ng, persona, human)
    compare_regressions(ng, human)
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


def is_persona(rec: dict) -> bool:
    it = rec.get("pact_item") or {}
    return bool(it.get("persona_country") or it.get("persona_demo"))


def compare_persona(ng, recs, human) -> None:
    # S5:154-176, 696-706 and 728-741 as the authors run them: the persona run's
    # prediction file (one row per model, persona and item, persona_setting
    # "persona") read by their read_prediction_files, merged with the
    # subgroup profiles on the persona's country and demo, summarised per
    # framing, model and persona.
    rows = []
    for r in recs:
        it = r["pact_item"]
        by_model = {}
        for res in r.get("pact") or []:
            by_model.setdefault(res["model"], {})[res["question"]] = letter(res.get("p_follow"))
        for model, q in by_model.items():
            rows.append({"persona_setting": "persona", "model_tag": model, "scenario_item_id": group_of(r),
                         "persona_country": it.get("persona_country", ""), "persona_demo": it.get("persona_demo", ""),
                         "llm_personal": q.get("personal", ""), "llm_norm": q.get("norm", "")})
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "llm_predictions.csv"
        pd.DataFrame(rows).to_csv(path, index=False)
        pred = s5.read_prediction_files([str(path)], "persona")
    if len(pred) != len(rows):
        failures.append(f"persona run: the authors keep {len(pred)} of {len(rows)} prediction rows (duplicates in the fixture)")
    pred_long_df = s5.prediction_long(pred)
    profiles = pd.concat([s5.human_item_profiles(human, rt, ["respondent_country", "respondent_demo"]) for rt in FRAMINGS], ignore_index=True)
    subgroup_profiles = profiles.dropna(subset=["respondent_country", "respondent_demo"])
    persona_join = pred_long_df[pred_long_df["setting"] == "persona"].merge(
        subgroup_profiles,
        left_on=["scenario_item_id", "response_type", "persona_country", "persona_demo"],
        right_on=["scenario_item_id", "response_type", "respondent_country", "respondent_demo"],
        how="inner",
    )
    summary = s5.summarize_alignment(persona_join, ["setting", "model_tag", "response_type", "persona_country", "persona_demo"])
    run = ng["persona"]
    got = {(x["question"], x["model"], x["persona_country"], x["persona_demo"]): x for x in run["alignment"]}

    for _, a in summary.iterrows():
        what = f"persona {a['response_type']} {a['model_tag']} {a['persona_country']}/{a['persona_demo']}"
        g = got.get((a["response_type"], a["model_tag"], a["persona_country"], a["persona_demo"]))
        if g is None:
            failures.append(what + ": missing in ngstats")
            continue
        check_alignment(what, g, a)
    if len(got) != len(summary):
        failures.append(f"persona run: ngstats has {len(got)} rows, the authors {len(summary)}")
    # S5:751-756: the uncertainty alignment of both settings; the paper's
    # figures are of the persona one (plot_section5_acl_figures.py:245-248).
    overall = pd.concat([s5.human_item_profiles(human, rt, []) for rt in FRAMINGS], ignore_index=True)
    unc = s5.model_uncertainty(pred_long_df, overall, [])
    unc = unc[unc["setting"] == "persona"]
    gotu = {(x["question"], x["model"]): x for x in run["uncertainty"]}
    for _, u in unc.iterrows():
        what = f"persona uncertainty {u['response_type']} {u['model_tag']}"
        g = gotu.get((u["response_type"], u["model_tag"]))
        if g is None:
            failures.append(what + ": missing in ngstats")
            continue
        check_uncertainty(what, g, u)
    if len(gotu) != len(unc):
        failures.append(f"persona uncertainty: ngstats has {len(gotu)} rows, the authors {len(unc)}")
    # the site's uncertaintyAvg: corr and modelAgreement, means per model
    uavg = unc.groupby("model_tag")[["human_model_agreement_correlation", "mean_model_majority_agreement"]].mean()
    gota = {x["model"]: x for x in run["uncertainty_averages"]}
    for model, a in uavg.iterrows():
        g = gota.get(model) or {}
        check(f"persona uncertainty average {model} r", g.get("uncertainty_r"), a["human_model_agreement_correlation"])
        check(f"persona uncertainty average {model} model agreement", g.get("model_majority_agreement"), a["mean_model_majority_agreement"])
    if len(gota) != len(uavg):
        failures.append(f"persona uncertainty averages: ngstats has {len(gota)}, the authors {len(uavg)}")
    if len(summary) < 50 or run["incomplete"] == 0 or run["unmatched"] == 0:
        failures.append(f"persona run: the fixture lacks its cases ({len(summary)} rows, {run['incomplete']} incomplete, {run['unmatched']} unmatched)")


# The regressions' tolerances. Deviances, df_model and nobs are compared
# to TOL; the coefficients, standard errors and z to REG_TOL relative (of
# max(1, |value|)): the collinear dummy columns leave directions of the
# penalised Hessian whose curvature is the ridge alone (1e-6) next to
# ones of hundreds, so rounding in the sums of X'(y - p), which differ in
# order between numpy's BLAS and ngkit, is amplified about 1e8 times in
# those coefficients and their standard errors (the fitted
# probabilities, hence the deviances, do not move).
REG_TOL = 1e-6


def compare_regressions(ng, human) -> None:
    # S5:252-664 by the authors' default backend (write_manual_regressions,
    # the NumPy ridge-logistic fit): their output files read back (pandas
    # writes floats round-trip exact). A blank cell of their tidy CSV is
    # NaN to pandas (the design's "NA" level): the glue's "" is made NaN.
    reg_human = human.copy()
    for c in ["respondent_country", "respondent_age_bucket", "respondent_gender", "scenario_country", "receiver_age", "receiver_gender"]:
        reg_human[c] = reg_human[c].replace("", np.nan)
    os.environ.pop("SECTION5_USE_STATSMODELS", None)
    with tempfile.TemporaryDirectory() as tmp:
        s5.write_regressions(reg_human, Path(tmp))
        backend = (Path(tmp) / "human_regression_backend.txt").read_text(encoding="utf-8")
        summary = (Path(tmp) / "human_regression_summary.txt").read_text(encoding="utf-8")
        coef = pd.read_csv(Path(tmp) / "human_regression_coefficients.csv", keep_default_na=False, na_values=[""])
        dev = pd.read_csv(Path(tmp) / "human_regression_drop_one_deviance.csv", keep_default_na=False, na_values=[""])
    if "NumPy ridge-logistic" not in backend:
        failures.append(f"regressions: the authors used another backend: {backend.strip()}")
    run = ng.get("human_regression") or {}
    got = {m["model"]: m for m in run.get("models", [])}
    fits = re.findall(r"=== (\S+) ===\nManual ridge logistic regression fallback\nnobs=(\d+); df_model=(\d+); deviance=", summary)
    if len(fits) != 3 or len(got) != 3:
        failures.append(f"regressions: the authors fitted {len(fits)} models, ngstats {len(got)}")

    worst = {}

    def reg_check(what, a, b):
        global checks
        checks += 1
        if a is None or b is None or (isinstance(b, float) and math.isnan(b)):
            if not same(a, b):
                failures.append(f"{what}: ngstats {a!r}, authors {b!r}")
            return
        d = abs(float(a) - float(b)) / max(1.0, abs(float(b)))
        kind = what.rsplit(" ", 1)[1]
        worst[kind] = max(worst.get(kind, 0.0), d)
        if not d <= REG_TOL:
            failures.append(f"{what}: ngstats {a!r}, authors {b!r}")

    for name, nobs, df_model in fits:
        g = got.get(name)
        if g is None:
            failures.append(f"regression {name}: missing in ngstats")
            continue
        check(f"regression {name} nobs", g["nobs"], int(nobs))
        check(f"regression {name} df_model", g["df_model"], int(df_model))
        c = coef[coef["model"] == name]
        if list(c["term"]) != [x["term"] for x in g["coefficients"]]:
            failures.append(f"regression {name}: terms differ: ngstats {[x['term'] for x in g['coefficients']]}, authors {list(c['term'])}")
            continue
        for x, (_, a) in zip(g["coefficients"], c.iterrows()):
            what = f"regression {name} {a['term']}"
            reg_check(what + " coef", x["coef"], a["coef"])
            reg_check(what + " std_err", x["std_err"], a["std_err"])
            reg_check(what + " z", x["z"], a["z_value"])
            # p = erfc(|z|/sqrt 2): within REG_TOL where z is
            reg_check(what + " p", x["p"], a["p_value"])
    print("pact-authors: regressions, largest relative difference: " + ", ".join(f"{k} {v:.1e}" for k, v in worst.items()))
    gotd = {(d["model"], d["dropped_factor"]): d for d in run.get("drop_one", [])}
    for _, a in dev.iterrows():
        what = f"regression {a['model']} drop {a['dropped_factor']}"
        g = gotd.get((a["model"], a["dropped_factor"]))
        if g is None:
            failures.append(what + ": missing in ngstats")
            continue
        check(what + " full deviance", g["full_deviance"], a["full_deviance"])
        check(what + " reduced deviance", g["reduced_deviance"], a["reduced_deviance"])
        check(what + " drop-one deviance", g["drop_one_deviance"], a["drop_one_deviance"])
        check(what + " full df", g["full_df_model"], a["full_df_model"])
        check(what + " reduced df", g["reduced_df_model"], a["reduced_df_model"])
        check(what + " df difference", g["df_difference"], a["df_difference"])
    if len(gotd) != len(dev) or len(dev) != 21:
        failures.append(f"regressions: ngstats has {len(gotd)} drop-one rows, the authors {len(dev)}")
    # the awkward cases the fixture must keep: collinear columns (rank
    # below the columns), a factor of one level (no column), blank answers
    # (fewer rows than twice the answers)
    comb = got.get("combined_personal_vs_norm") or {"coefficients": [], "df_model": 0, "nobs": 0}
    terms = [x["term"] for x in comb["coefficients"]]
    if comb["df_model"] >= len(terms) - 1 or any(t.startswith("respondent_age_") for t in terms) or comb["nobs"] >= 2 * len(human):
        failures.append(f"regressions: the fixture lacks its cases (df_model {comb['df_model']} of {len(terms)} columns, nobs {comb['nobs']} of {2 * len(human)} answers)")


def letter_of(choice):
    return {"follow_culture": "A", "allow_preference": "B"}.get(choice or "", np.nan)


def compare_human_study(ng, human) -> None:
    # S5:677-687, every grouping of the authors'
    groupings = {"overall": [], "respondent_country": ["respondent_country"], "relation": ["country_relation"],
                 "respondent_country+relation": ["respondent_country", "country_relation"],
                 "scenario_country": ["scenario_country"], "receiver_age": ["receiver_age"], "receiver_gender": ["receiver_gender"],
                 "respondent_demo": ["respondent_demo"], "scenario_theme": ["scenario_theme"]}
    got = {(g["framing"], g["grouping"], g["value"]): g for g in ng["human_study"]}
    for grouping, cols in groupings.items():
        summary = s5.summarize_human_group(human, cols)
        for _, row in summary.iterrows():
            value = " / ".join("" if pd.isna(row[c]) else str(row[c]) for c in cols)
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
        check_alignment(what, g, a)
    for _, u in unc.iterrows():
        q = next(x for x in ng["questions"] if x["question"] == u["response_type"])
        g = next((x for x in q["paper"]["alignment"] if x["model"] == u["model_tag"]), None)
        what = f"uncertainty {u['response_type']} {u['model_tag']}"
        if g is None:
            failures.append(what + ": missing in ngstats")
            continue
        check_uncertainty(what, g, u)
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
