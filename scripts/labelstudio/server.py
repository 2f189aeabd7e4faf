"""The review round trip through a real Label Studio server's REST API.

Run by scripts/labelstudio-server.sh against a server it started. Logs in
as the user the server made from LABEL_STUDIO_USERNAME/PASSWORD and turns
on the legacy API tokens for its organization (new organizations have them
off since 1.18: Organization -> Access Token Settings in the UI, POST
/api/jwt/settings here), so that LABEL_STUDIO_USER_TOKEN works; makes a
second reviewer (POST /api/users/).

Project "ngkit": the config ngcat --review-config wrote, ngcat's tasks with
their predictions imported; every prediction must be on the server as sent.
Then, as reviewers do:
  task 0: u1 relabels the norm of turn 1 (origin prediction-changed) and
          draws a new intent region on turn 2 beside the predicted one
          (manual), rejects, comments; u2 keeps the prediction, accepts.
  task 1: u1 skips the task (an annotation with was_cancelled); u2 leaves a
          draft (POST /api/tasks/ID/drafts) and never submits.
  task 2: u1 accepts, then annotates again and rejects (the same person
          twice: the newer counts); u2 cancels an annotation with a verdict.
Exports JSON, JSON_MIN and CSV (GET /api/projects/ID/export), writes them
to --out, and expect.json: what ngcat --from labelstudio must make of them.

Project "ngkit-bad" (bad input): tasks 0 and 1 again; u1
reviews both; task 1's data is then edited to drop its last two turns (the
annotation on turn 4 now points past the dialogue); a third task is
annotated, then deleted. Its JSON export is bad.json.

Then ngcat --from labelstudio reads each export back (the CSV export is
refused with one line) and the reviewed records and ngstats' figures are
checked against what was submitted.

Usage: python server.py --url URL --ngkit BIN --tasks tasks.json --config config.xml --out DIR
"""

import argparse
import copy
import json
import os
import subprocess
import sys
import time

import requests

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from review_agreement import agreement  # noqa: E402

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL " + msg, file=sys.stderr)


class LS:
    def __init__(self, url, email, password, token):
        self.url = url
        s = requests.Session()
        s.get(url + "/user/login/", timeout=30).raise_for_status()
        r = s.post(url + "/user/login/", data={"email": email, "password": password, "csrfmiddlewaretoken": s.cookies["csrftoken"]},
                   headers={"Referer": url + "/user/login/"}, allow_redirects=False, timeout=30)
        if r.status_code != 302:
            raise SystemExit(f"login as {email}: HTTP {r.status_code}")
        r = s.post(url + "/api/jwt/settings", json={"api_tokens_enabled": True, "legacy_api_tokens_enabled": True},
                   headers={"X-CSRFToken": s.cookies["csrftoken"], "Referer": url}, timeout=30)
        r.raise_for_status()
        self.h = {"Authorization": "Token " + token}

    def call(self, method, path, **kw):
        r = requests.request(method, self.url + path, headers=self.h, timeout=120, **kw)
        if r.status_code >= 400:
            raise SystemExit(f"{method} {path}: HTTP {r.status_code}: {r.text[:500]}")
        return r


def region(task, turn, label, origin, rid):
    text = task["data"]["dialogue"][turn]["text"]
    return {"id": rid, "from_name": task_of(label), "to_name": "dialogue", "type": "paragraphlabels", "origin": origin,
            "value": {"start": str(turn), "end": str(turn), "startOffset": 0, "endOffset": utf16(text), "text": text,
                      "paragraphlabels": [label]}}


NORMS = ["adhered", "violated", "not_relevant"]
INTENTS = "ACK AGR DIS APO THX EMP JUS SUG QUE CRT NR".split()


def task_of(label):
    return "norm" if label in NORMS else "intent"


def utf16(s):
    return len(s.encode("utf-16-le")) // 2


def choice(verdict):
    return {"id": "verdict", "from_name": "verdict", "to_name": "dialogue", "type": "choices", "origin": "manual",
            "value": {"choices": [verdict]}}


def comment(text):
    return {"id": "comment", "from_name": "comment", "to_name": "dialogue", "type": "textarea", "origin": "manual",
            "value": {"text": [text]}}


def predicted(task, origin="prediction"):
    out = copy.deepcopy(task["predictions"][0]["result"])
    for r in out:
        r["origin"] = origin
    return out


def human(task, result):
    """The labels_human a single annotation's result gives, by turn."""
    mine = {}
    for r in result:
        if r["type"] != "paragraphlabels":
            continue
        k = (int(r["value"]["start"]), r["from_name"])
        if k not in mine or r.get("origin") in ("manual", "prediction-changed") or mine[k][1] not in ("manual", "prediction-changed"):
            mine[k] = (r["value"]["paragraphlabels"][0], r.get("origin"))
    out = {}
    for (turn, task_name), (label, _) in mine.items():
        out.setdefault(str(turn), {})[task_name] = label
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--ngkit", required=True)
    ap.add_argument("--tasks", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    ls = LS(a.url, os.environ["LABEL_STUDIO_USERNAME"], os.environ["LABEL_STUDIO_PASSWORD"], os.environ["LABEL_STUDIO_USER_TOKEN"])
    version = ls.call("GET", "/api/version").json()["release"]
    u1 = ls.call("GET", "/api/current-user/whoami").json()["id"]
    users = {u["email"]: u["id"] for u in ls.call("GET", "/api/users/").json()}
    u2 = users.get("reviewer2@example.com") or ls.call(
        "POST", "/api/users/", json={"email": "reviewer2@example.com", "username": "reviewer2", "first_name": "Reviewer"}).json()["id"]
    tasks = json.load(open(a.tasks, encoding="utf-8"))
    config = open(a.config, encoding="utf-8").read()

    def project(title, ts):
        pid = ls.call("POST", "/api/projects", json={"title": title, "label_config": config}).json()["id"]
        imp = ls.call("POST", f"/api/projects/{pid}/import", json=ts).json()
        if imp.get("task_count") != len(ts):
            fail(f"{title}: import: {imp}")
        got = ls.call("GET", f"/api/tasks?project={pid}&page_size=100&fields=all").json()
        got = got["tasks"] if isinstance(got, dict) else got
        got.sort(key=lambda t: t["id"])
        return pid, [t["id"] for t in got]

    pid, ids = project("ngkit", tasks)
    # Every prediction on the server as sent: on its turn, with its label.
    placed = sent = 0
    for tid, t in zip(ids, tasks):
        preds = ls.call("GET", f"/api/predictions?task={tid}").json()
        want = t["predictions"][0]["result"]
        sent += len(want)
        if len(preds) != 1:
            fail(f"task {tid}: {len(preds)} predictions on the server, want 1")
            continue
        got = {r["id"]: r for r in preds[0]["result"]}
        for w in want:
            g = got.get(w["id"])
            turn = int(w["value"]["start"])
            if g is None or g["value"]["start"] != str(turn) or g["value"]["paragraphlabels"] != w["value"]["paragraphlabels"] \
                    or g["value"]["text"] != t["data"]["dialogue"][turn]["text"]:
                fail(f"task {tid}: prediction {w['id']}: on the server {g}, sent {w}")
            else:
                placed += 1
        if preds[0].get("model_version") != t["predictions"][0]["model_version"]:
            fail(f"task {tid}: model_version {preds[0].get('model_version')!r}")
    print(f"label studio {version}: {placed} of {sent} predictions on their turns in {len(ids)} tasks")

    def annotate(tid, user, result, cancelled=False):
        body = {"result": result, "was_cancelled": cancelled, "completed_by": user, "lead_time": 10.0}
        return ls.call("POST", f"/api/tasks/{tid}/annotations/", json=body).json()

    expect = []
    # task 0
    t0 = tasks[0]
    res = predicted(t0)
    target = next(r for r in res if r["from_name"] == "norm" and r["value"]["start"] == "1")
    target["value"]["paragraphlabels"] = [next(x for x in NORMS if x != target["value"]["paragraphlabels"][0])]
    target["origin"] = "prediction-changed"
    old_intent = next(r for r in res if r["from_name"] == "intent" and r["value"]["start"] == "2")["value"]["paragraphlabels"][0]
    drawn = next(x for x in INTENTS if x != old_intent)
    res.append(region(t0, 2, drawn, "manual", "drawn_intent_2"))
    annotate(ids[0], u1, res + [choice("reject"), comment("turn 1 is too blunt for a boss")])
    annotate(ids[0], u2, predicted(t0) + [choice("accept")])
    # Two reviewers: where they differ the first (u1) wins the tie.
    h = human(t0, predicted(t0))
    for turn, by in human(t0, res).items():
        h[turn].update(by)
    expect.append({"id": t0["data"]["ngkit_id"], "human": h, "verdict": "reject", "reviewers": 2, "comments": ["turn 1 is too blunt for a boss"]})
    # task 1: skipped by u1; u2's draft only (drafts are made by the caller: u1's token)
    t1 = tasks[1]
    annotate(ids[1], u1, [], cancelled=True)
    ls.call("POST", f"/api/tasks/{ids[1]}/drafts", json={"result": predicted(t1) + [choice("accept")], "lead_time": 5.0})
    expect.append({"id": t1["data"]["ngkit_id"], "human": {}, "verdict": None, "reviewers": None, "comments": None})
    # task 2: u1 twice (accept, then reject: the newer counts); u2 cancels
    t2 = tasks[2]
    annotate(ids[2], u1, predicted(t2) + [choice("accept")])
    time.sleep(1.1)  # updated_at tells the newer annotation
    annotate(ids[2], u1, predicted(t2) + [choice("reject")])
    annotate(ids[2], u2, predicted(t2) + [choice("accept")], cancelled=True)
    expect.append({"id": t2["data"]["ngkit_id"], "human": human(t2, predicted(t2)), "verdict": "reject", "reviewers": 1, "comments": None})

    for kind, name in [("JSON", "export.json"), ("JSON_MIN", "export_min.json"), ("CSV", "export.csv")]:
        r = ls.call("GET", f"/api/projects/{pid}/export?exportType={kind}&download_all_tasks=true")
        open(os.path.join(a.out, name), "wb").write(r.content)
    json.dump({"version": version, "records": expect}, open(os.path.join(a.out, "expect.json"), "w"), ensure_ascii=False, indent=1)

    # The bad project: an edited task and a deleted one.
    bad = [copy.deepcopy(tasks[0]), copy.deepcopy(tasks[1]), copy.deepcopy(tasks[2])]
    bpid, bids = project("ngkit-bad", bad)
    annotate(bids[0], u1, predicted(bad[0]) + [choice("accept")])
    annotate(bids[1], u1, predicted(bad[1]) + [choice("accept")])
    annotate(bids[2], u1, predicted(bad[2]) + [choice("reject")])
    data = bad[1]["data"]
    data["dialogue"] = data["dialogue"][:-2]
    data["ngkit_record"]["turns"] = data["ngkit_record"]["turns"][:-2]
    ls.call("PATCH", f"/api/tasks/{bids[1]}", json={"data": data})
    ls.call("DELETE", f"/api/tasks/{bids[2]}")
    r = ls.call("GET", f"/api/projects/{bpid}/export?exportType=JSON&download_all_tasks=true")
    open(os.path.join(a.out, "bad.json"), "wb").write(r.content)
    if len(r.json()) != 2:
        fail(f"bad.json: {len(r.json())} tasks, want 2 (one deleted)")
    check_exports(a, expect, bids)


def ngcat(a, name):
    path = os.path.join(a.out, name)
    p = subprocess.run([a.ngkit, "ngcat", "--from", "labelstudio", path, "-o", path + ".reviewed.jsonl"], capture_output=True, text=True)
    return p, path + ".reviewed.jsonl"


def check_exports(a, expect, bids):
    """ngcat --from labelstudio on each export, against what was submitted."""
    reviewed = [e for e in expect if e["verdict"]]
    tasks_line = "labelstudio: {} tasks read, {} with a submitted annotation"
    again = "labelstudio: 1 annotations left out: their annotator annotated the same task again"
    for name, want, lines in [
        ("export.json", expect, [tasks_line.format(len(expect), len(reviewed)), again]),
        # JSON_MIN has submitted annotations only: unreviewed tasks are not in it.
        ("export_min.json", reviewed, [tasks_line.format(len(reviewed), len(reviewed)), again, "is the JSON_MIN export"]),
    ]:
        p, out = ngcat(a, name)
        if p.returncode != 0:
            fail(f"{name}: ngcat exit {p.returncode}: {p.stderr.strip()}")
            continue
        for l in lines:
            if l not in p.stderr:
                fail(f"{name}: ngcat said {p.stderr.strip()!r}, want a line with {l!r}")
        recs = [json.loads(x) for x in open(out, encoding="utf-8")]
        check_records(a, name, recs, want, out)
    p, _ = ngcat(a, "export.csv")
    lines = p.stderr.strip().splitlines()
    if p.returncode != 2 or len(lines) != 1 or "a CSV export: ngcat --from labelstudio reads Label Studio's JSON export" not in lines[0]:
        fail(f"export.csv: ngcat exit {p.returncode}, said {p.stderr.strip()!r}: want exit 2 and one line refusing CSV")
    else:
        print(f"export.csv: refused in one line: {lines[0]}")
    # bad.json: the task whose turns were cut fails alone, naming the file
    # and task; the other comes back; the deleted one is not there.
    p, out = ngcat(a, "bad.json")
    failed = [l for l in p.stderr.splitlines() if "failed:" in l and "(" in l]
    if p.returncode != 1 or len(failed) != 1 or "bad.json:2" not in failed[0] or f"task {bids[1]}:" not in failed[0] \
            or "a region over turns" not in failed[0]:
        fail(f"bad.json: ngcat exit {p.returncode}, said {p.stderr.strip()!r}: want exit 1 and one line for task {bids[1]}")
    recs = [json.loads(x) for x in open(out, encoding="utf-8")]
    if len(recs) != 1 or (recs[0].get("review") or {}).get("verdict") != "accept":
        fail(f"bad.json: {len(recs)} records read back: want task {bids[0]}'s, accepted")
    elif tasks_line.format(2, 1) not in p.stderr:
        fail(f"bad.json: ngcat said {p.stderr.strip()!r}: want the count of tasks read")
    else:
        print(f"bad.json: the edited task refused in one line ({failed[0].strip()}), the other read, the deleted one counted out")


def check_records(a, name, recs, expect, path):
    if [r["id"] for r in recs] != [e["id"] for e in expect]:
        fail(f"{name}: ids {[r['id'] for r in recs]}, want {[e['id'] for e in expect]}")
        return
    pairs = {}
    for r, want in zip(recs, expect):
        for i, t in enumerate(r["turns"]):
            got = t.get("labels_human") or {}
            if got != want["human"].get(str(i), {}):
                fail(f"{name}: {r['id']} turn {i}: labels_human {got}, want {want['human'].get(str(i), {})}")
            for task, l in got.items():
                pairs.setdefault(task, []).append((t["labels"][task], l))
        rv = r.get("review") or {}
        if rv.get("verdict") != want["verdict"] or rv.get("reviewers") != want["reviewers"] or rv.get("comments") != want["comments"]:
            fail(f"{name}: {r['id']}: review {rv}, want {want}")
    p = subprocess.run([a.ngkit, "ngstats", path, "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{name}: ngstats exit {p.returncode}: {p.stderr.strip()}")
        return
    report = json.loads(p.stdout).get("review", {})
    for ok, line in agreement(name, report, pairs):
        if ok:
            print(line)
        else:
            fail(line)
    v = next((x for x in report.get("verdicts", []) if x["group"] == "all"), None)
    n = sum(1 for e in expect if e["verdict"])
    rej = sum(1 for e in expect if e["verdict"] == "reject")
    if not v or v["reviewed"] != n or v["rejected"] != rej:
        fail(f"{name}: ngstats verdicts {v}, want {n} reviewed, {rej} rejected")
    else:
        print(f"{name}: {len(recs)} records read back, {n} reviewed, {rej} rejected, as submitted")


if __name__ == "__main__":
    main()
    if failures:
        print(f"{len(failures)} failures", file=sys.stderr)
        sys.exit(1)
