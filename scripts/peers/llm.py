#!/usr/bin/env python3
"""The LLM-runtime peers of bench.sh, each sending the same chat requests
(the bodies nglabel sent, recorded by fakellm) to the same fake server.

  llm.py prepare RECORDING REQUESTS      the recorded POSTs -> {"id", "body", "want"} lines
  llm.py run PEER REQUESTS OUT           PEER: openai, curator, distilabel, datadesigner
  llm.py score REQUESTS OUT              prints "done lost dup wrong"
  llm.py score-ngkit DIALOGUES OUT       nglabel's output: prints "done lost dup"

`run` reads BASE_URL, CONCURRENCY, TIMEOUT (s) and RETRIES from the
environment and writes one {"id", "content"} line per reply it got
(content null for a request it gave up on). Each peer is set up as its
documentation says for an OpenAI-compatible server, with the same
concurrency, timeout and retries as ngkit and the same body (messages and
response_format) as nglabel's request: the fake answers by that body, so
the replies are the same size as ngkit's.
"""
import json
import os
import sys


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def prepare(recording, out):
    n = 0
    with open(out, "w", encoding="utf-8") as w:
        for ex in read_jsonl(recording):
            if ex.get("method") != "POST" or not ex["path"].endswith("/chat/completions") or ex["status"] != 200:
                continue
            body = ex["request"]
            want = ex["response"]["choices"][0]["message"]["content"]
            w.write(json.dumps({"id": f"r{n}", "body": body, "want": want}, ensure_ascii=False) + "\n")
            n += 1
    print(f"{n} requests")


def score(requests, out):
    want = {r["id"]: r["want"] for r in read_jsonl(requests)}
    got = {}
    dup = 0
    for r in read_jsonl(out):
        if r.get("content") is None:
            continue
        if r["id"] in got:
            dup += 1
        got[r["id"]] = r["content"]
    lost = sum(1 for i in want if i not in got)
    wrong = sum(1 for i, c in got.items() if want.get(i) != c)
    print(len(got), lost, dup, wrong)


def score_ngkit(dialogues, out):
    """nglabel's output: a record is done when every turn has labels."""
    want = [r["id"] for r in read_jsonl(dialogues)]
    seen, done = {}, set()
    for r in read_jsonl(out):
        seen[r["id"]] = seen.get(r["id"], 0) + 1
        if r.get("turns") and all(t.get("labels") for t in r["turns"]):
            done.add(r["id"])
    lost = sum(1 for i in want if i not in done)
    dup = sum(n - 1 for n in seen.values())
    print(len(done), lost, dup)


def env():
    return (os.environ["BASE_URL"], int(os.environ["CONCURRENCY"]),
            float(os.environ["TIMEOUT"]), int(os.environ["RETRIES"]))


def run_openai(reqs, out):
    """The floor: AsyncOpenAI and a semaphore, the SDK's own retries."""
    import asyncio
    from openai import AsyncOpenAI

    url, conc, timeout, retries = env()

    async def main():
        client = AsyncOpenAI(base_url=url, api_key="none", timeout=timeout, max_retries=retries)
        sem = asyncio.Semaphore(conc)

        async def one(r):
            async with sem:
                try:
                    resp = await client.chat.completions.create(**r["body"])
                    return r["id"], resp.choices[0].message.content
                except Exception as e:  # a request given up on
                    print(f"openai: {r['id']}: {type(e).__name__}", file=sys.stderr)
                    return r["id"], None

        res = await asyncio.gather(*(one(r) for r in reqs))
        await client.close()
        return res

    write(out, asyncio.run(main()))


def run_curator(reqs, out):
    """curator's LLM class on its OpenAI backend (online processor)."""
    # Offline as the bench machine is: curator counts tokens with tiktoken,
    # whose cl100k_base file litellm (a dependency) ships; no telemetry,
    # no reply cache (every run must call), litellm's bundled price map.
    import importlib.util
    tok = os.path.join(os.path.dirname(importlib.util.find_spec("litellm").origin), "litellm_core_utils", "tokenizers")
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", tok)
    os.environ.update(TELEMETRY_ENABLED="false", CURATOR_DISABLE_CACHE="1", LITELLM_LOCAL_MODEL_COST_MAP="True",
                      CURATOR_DISABLE_RICH_DISPLAY="1")
    from bespokelabs import curator

    url, conc, timeout, retries = env()
    fmt = one_format(reqs)

    class Job(curator.LLM):
        def prompt(self, row):
            return json.loads(row["messages"])

        def parse(self, row, response):
            return {"id": row["id"], "content": response}

    llm = Job(model_name=reqs[0]["body"]["model"], backend="openai",
              generation_params={"response_format": fmt} if fmt else None,
              backend_params={"base_url": url, "api_key": "none", "max_retries": retries,
                              "request_timeout": max(1, int(timeout)), "max_concurrent_requests": conc,
                              "max_requests_per_minute": 10_000_000, "max_tokens_per_minute": 10_000_000_000,
                              "seconds_to_pause_on_rate_limit": 1, "require_all_responses": False})
    rows = [{"id": r["id"], "messages": json.dumps(r["body"]["messages"])} for r in reqs]
    ds = llm(rows)
    ds = getattr(ds, "dataset", ds)
    write(out, [(row["id"], row["content"]) for row in ds])


def run_distilabel(reqs, out):
    """distilabel: OpenAILLM in a ChatGeneration step of a pipeline; a step
    sends a batch of rows at once, so the batch size is the concurrency."""
    import tempfile

    os.environ.setdefault("DISTILABEL_CACHE_DIR", tempfile.mkdtemp(prefix="distilabel-"))
    from distilabel.models import OpenAILLM
    from distilabel.pipeline import Pipeline
    from distilabel.steps import LoadDataFromDicts
    from distilabel.steps.tasks import ChatGeneration

    url, conc, timeout, retries = env()
    fmt = one_format(reqs)
    rows = [{"id": r["id"], "messages": r["body"]["messages"]} for r in reqs]
    with Pipeline(name="ngkit-bench", cache_dir=os.environ["DISTILABEL_CACHE_DIR"]) as pipeline:
        load = LoadDataFromDicts(data=rows, batch_size=conc)
        gen = ChatGeneration(
            llm=OpenAILLM(model=reqs[0]["body"]["model"], base_url=url, api_key="none", max_retries=retries,
                          timeout=int(timeout),
                          # its response_format argument takes only {"type": ...}: the
                          # schema goes in the body as extra_body; max_new_tokens is
                          # always sent (default 128), so it is set above any reply
                          generation_kwargs={"extra_body": {"response_format": fmt} if fmt else {},
                                             "max_new_tokens": 16384}),
            input_batch_size=conc)
        load >> gen
    ds = pipeline.run(use_cache=False)
    write(out, [(row["id"], row["generation"]) for row in ds["default"]["train"]])


def run_datadesigner(reqs, out):
    """Data Designer: an LLM text column over a seed DataFrame of the
    prompts, the schema passed through extra_body (a structured column
    would put its own schema in the request). Its retries are not
    configurable (RetryConfig: 3 on 502/503/504 and transport errors, 429
    to its adaptive admission)."""
    import tempfile

    home = tempfile.mkdtemp(prefix="datadesigner-")
    os.environ.update(NEMO_TELEMETRY_ENABLED="false", DATA_DESIGNER_HOME=home)
    import pandas as pd
    import data_designer.config as dd
    from data_designer.interface.data_designer import DataDesigner

    url, conc, timeout, retries = env()
    fmt = one_format(reqs)
    msgs = [r["body"]["messages"] for r in reqs]
    if any(len(m) != 2 or m[0]["role"] != "system" or m[1]["role"] != "user" for m in msgs):
        sys.exit("llm.py: datadesigner takes a system and a user message")
    df = pd.DataFrame({"rid": [r["id"] for r in reqs], "sys": [m[0]["content"] for m in msgs],
                       "usr": [m[1]["content"] for m in msgs]})
    model = dd.ModelConfig(alias="bench", model=reqs[0]["body"]["model"], provider="fake", skip_health_check=True,
                           inference_parameters=dd.ChatCompletionInferenceParams(
                               max_parallel_requests=conc, timeout=max(1, int(timeout)),
                               extra_body={"response_format": fmt} if fmt else None))
    builder = dd.DataDesignerConfigBuilder(model_configs=[model])
    builder.with_seed_dataset(dd.DataFrameSeedSource(df=df))
    builder.add_column(dd.LLMTextColumnConfig(name="reply", prompt="{{ usr }}", system_prompt="{{ sys }}",
                                              model_alias="bench"))
    designer = DataDesigner(artifact_path=home, model_providers=[dd.ModelProvider(name="fake", endpoint=url,
                                                                                  api_key="none")])
    res = designer.create(builder, num_records=len(reqs))
    ds = res.load_dataset()
    write(out, [(i, c if isinstance(c, str) else None) for i, c in zip(ds["rid"], ds["reply"])])


def one_format(reqs):
    """The response_format of every request: the peers that take one per
    run (curator, distilabel) get a job with one."""
    fmt = reqs[0]["body"].get("response_format")
    if any(r["body"].get("response_format") != fmt for r in reqs):
        sys.exit("llm.py: the requests have more than one response_format")
    return fmt


def write(out, pairs):
    with open(out, "w", encoding="utf-8") as w:
        for i, c in pairs:
            w.write(json.dumps({"id": i, "content": c}, ensure_ascii=False) + "\n")


def main():
    cmd = sys.argv[1]
    if cmd == "prepare":
        prepare(sys.argv[2], sys.argv[3])
    elif cmd == "score-ngkit":
        score_ngkit(sys.argv[2], sys.argv[3])
    elif cmd == "score":
        score(sys.argv[2], sys.argv[3])
    elif cmd == "run":
        peer, reqs, out = sys.argv[2], read_jsonl(sys.argv[3]), sys.argv[4]
        globals()["run_" + peer](reqs, out)
    else:
        sys.exit(f"llm.py: unknown command {cmd}")


if __name__ == "__main__":
    main()
