#!/usr/bin/env bash
# The Python readers ngkit's users load its files with, pinned
# (scripts/python/interop.txt), value by value against ngkit's JSONL of the
# same records (scripts/interop/py/values.py: compare.mjs's rule, nulls and
# empty lists included):
#
# - datasets.load_dataset(DIR) on every --hf folder ngcat writes (labelled
#   V2R dialogues from the demo model, the release sample with train/test
#   splits in several shards, PACT results, ngsim episodes, the synthetic
#   fixture with every field set, a folder merged from three --shard K/3
#   runs with its card by ngstats): configs, splits, features and sizes as
#   the card declares them; huggingface_hub's DatasetCard and
#   DatasetCardData parse the card without a warning, metadata unchanged;
# - Dataset.from_parquet on every -o x.parquet (records, --to messages,
#   --to prosocial), load_dataset("json") on every JSONL;
# - pyarrow and polars on Parquet (at every --zstd-level, 1 to 22), Arrow
#   IPC file and stream, JSONL and the --hf shards;
# - the other way: datasets writes ngkit's records (to_parquet, to_json,
#   from the Parquet and from the JSONL) and ngcat reads them back.
#
# Skips with one line when python3 (>= 3.10, with venv) or PyPI is not to
# be had. Bounded to 10 minutes (about 1 when the venv exists).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${NGKIT_INTEROP_PY_BOUNDED:-}" ]; then
  export NGKIT_INTEROP_PY_BOUNDED=1
  exec timeout -k 10 600 bash "$0" "$@"
fi
export PATH="/usr/local/go/bin:$PATH"
skip() { echo "interop-py.sh: skipped: $*"; exit 0; }
command -v python3 >/dev/null || skip "no python3"
python3 -c 'import sys, venv; sys.exit(sys.version_info < (3, 10))' 2>/dev/null || skip "python3 is older than 3.10 or has no venv module"
venv=$(bash scripts/pyvenv.sh interop 2>/tmp/interop-py-venv.$$.log) || {
  tail -3 /tmp/interop-py-venv.$$.log; rm -f /tmp/interop-py-venv.$$.log
  skip "could not install scripts/python/interop.txt (no PyPI?)"
}
rm -f /tmp/interop-py-venv.$$.log
py="$venv/bin/python"
here=$PWD/scripts/interop/py

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ngkit-interop-py.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
# Offline: nothing is fetched from the Hub; the caches die with $tmp.
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1 \
  HF_DATASETS_DISABLE_PROGRESS_BARS=1 HF_HOME="$tmp/hf-home" PYTHONDONTWRITEBYTECODE=1
go build -o "$tmp/ngkit" ./cmd/ngkit
ng() { "$tmp/ngkit" "$@"; }
cd "$tmp"

# The records: each kind ngkit makes, offline on the demo model.
demo() { NG_MODEL=demo ng "$@"; }
demo ngseed --culture korean --limit 1 --types adherence,violation,v2r -q | demo ngrefine -q | demo ngv2r -q | demo nglabel -q > v2r.jsonl
ng ngcat --from normgenesis "$OLDPWD"/testdata/normgenesis/*.json -q -o release.jsonl
demo ngseed --culture korean --limit 2 --types pact -q | demo ngpact -q > pact.jsonl
demo ngseed --culture korean --limit 2 --types episode -q | demo ngsim -q > sim.jsonl
(cd "$OLDPWD" && go run ./scripts/interop/mkfixture -dir "$tmp/fx" -n 1200)
cp fx/records.jsonl fixture.jsonl
for f in v2r release pact sim fixture; do
  [ -s $f.jsonl ] || { echo "interop-py.sh: $f.jsonl is empty"; exit 1; }
done
ng ngcat v2r.jsonl --to messages -q -o messages.jsonl
ng ngcat v2r.jsonl --to prosocial -q -o prosocial.jsonl

# 1. Hugging Face folders, loaded by datasets and huggingface_hub.
for f in v2r pact sim; do ng ngcat $f.jsonl -q --hf $f-hf --license cc-by-sa-4.0; done
ng ngcat fixture.jsonl -q --shard-mb 1 --hf fixture-hf
ng ngcat release.jsonl -q --split train=0.8,test=0.2 -o release-split.jsonl
ng ngcat release.jsonl -q --split train=0.8,test=0.2 --shard-mb 0.1 --hf release-hf --pretty-name "NormGenesis sample" --license cc-by-sa-4.0
for k in 0 1 2; do
  ng ngcat release.jsonl -q --split train=0.8,test=0.2 --shard "$k/3" --hf part-$k --license cc-by-sa-4.0
done
mkdir -p merged/data && cp part-*/data/*.parquet merged/data/
ng ngstats merged/data/*.parquet --card --license cc-by-sa-4.0 > merged/README.md
"$py" "$here/hf.py" folder --jsonl v2r.jsonl v2r-hf
"$py" "$here/hf.py" folder --jsonl pact.jsonl pact-hf
"$py" "$here/hf.py" folder --jsonl sim.jsonl sim-hf
"$py" "$here/hf.py" folder --jsonl fixture.jsonl fixture-hf
"$py" "$here/hf.py" folder --jsonl release-split.jsonl release-hf merged

# 2. -o x.parquet by Dataset.from_parquet, the JSONL by load_dataset("json").
for f in v2r release pact sim fixture messages prosocial; do
  if [ $f = messages ] || [ $f = prosocial ]; then
    ng ngcat v2r.jsonl --to $f -q -o $f.parquet
  else
    ng ngcat $f.jsonl -q -o $f.parquet
  fi
  "$py" "$here/hf.py" parquet --jsonl $f.jsonl $f.parquet
  "$py" "$here/hf.py" json --jsonl $f.jsonl $f.jsonl
done

# 3. pyarrow and polars on every file kind: Parquet (-o, and the shards of
# a --hf folder), Arrow IPC stream and file, JSONL.
for f in v2r release pact sim; do
  ng ngcat $f.jsonl -q -o $f.arrows
  ng ngcat $f.jsonl -q -o $f.arrow
  "$py" "$here/readers.py" --jsonl $f.jsonl $f.parquet $f.arrows $f.arrow $f.jsonl
done
# (mkfixture wrote fx/records.* with the writers ngcat -o uses.)
"$py" "$here/readers.py" --jsonl fixture.jsonl fx/records.parquet fx/records.arrows fx/records.arrow fixture.jsonl "fixture-hf/data/*.parquet"
"$py" "$here/readers.py" --jsonl release.jsonl "merged/data/*.parquet"
"$py" "$here/readers.py" --jsonl messages.jsonl messages.parquet
"$py" "$here/readers.py" --jsonl prosocial.jsonl prosocial.parquet
# Every --zstd-level a user may pick (1 to 22), on 300 records with every field.
ng ngcat fixture.jsonl -q --head 300 -o levels.jsonl
levels=()
for l in $(seq 1 22); do
  ng ngcat levels.jsonl -q --zstd-level "$l" -o "zstd-$l.parquet"
  levels+=("zstd-$l.parquet")
done
"$py" "$here/readers.py" --jsonl levels.jsonl "${levels[@]}"
"$py" "$here/hf.py" parquet --jsonl levels.jsonl zstd-1.parquet zstd-22.parquet

# 4. The other way: datasets writes ngkit's records, ngcat reads them back.
for f in v2r fixture; do
  "$py" "$here/hf.py" write $f.parquet $f.jsonl by-datasets-$f
  back=()
  for w in by-datasets-$f/*; do
    ng ngcat "$w" -q > "$w.back"
    back+=("$w.back")
  done
  # Parquet from a dataset loaded from ngkit's Parquet: the same bytes.
  cmp by-datasets-$f/from-parquet.parquet.back $f.jsonl \
    || { echo "interop-py.sh: ngcat read datasets' to_parquet of $f.parquet back differently"; exit 1; }
  # The rest went through datasets' JSON code: the same values.
  "$py" "$here/hf.py" back --jsonl $f.jsonl "${back[@]}"
done
echo "interop-py.sh: OK ($("$py" -c 'import datasets, huggingface_hub, pyarrow, polars; print(f"datasets {datasets.__version__}, huggingface_hub {huggingface_hub.__version__}, pyarrow {pyarrow.__version__}, polars {polars.__version__}")'))"
