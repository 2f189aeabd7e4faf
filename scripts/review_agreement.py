"""The review checks' one independent computation of ngstats' agreement
figures: accuracy and Cohen's kappa of the model's labels against the
reviewers', per task, from (model, human) pairs (scripts/labelstudio/server.py
and scripts/argilla/check.py)."""


def agreement(name, review, pairs):
    """ngstats' review.agreement (group "all") against the figures computed
    here: a (ok, line) per task, ok when they agree to 1e-9."""
    out = []
    for task, ps in pairs.items():
        n = len(ps)
        po = sum(1 for m, h in ps if m == h) / n
        rows, cols = {}, {}
        for m, h in ps:
            rows[m] = rows.get(m, 0) + 1
            cols[h] = cols.get(h, 0) + 1
        pe = sum(c / n * cols.get(l, 0) / n for l, c in rows.items())
        kappa = (po - pe) / (1 - pe) if pe != 1 else None
        got = next((x for x in review.get("agreement", []) if x["task"] == task and x["group"] == "all"), None)
        if not got or got["turns"] != n or abs(got["accuracy"] - po) > 1e-9 or (kappa is not None and abs(got["kappa"] - kappa) > 1e-9):
            out.append((False, f"{name}: {task}: ngstats {got}, computed {n} turns, accuracy {po}, kappa {kappa}"))
        else:
            k = "undefined" if kappa is None else f"{kappa:.3f}"
            out.append((True, f"{name}: {task}: {n} turns, accuracy {po:.3f}, kappa {k} (ngstats and this check agree)"))
    return out
