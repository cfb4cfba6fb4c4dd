#!/bin/sh
# Recreate the vendor samples under fixtures/ (fixtures/README.md) from the shared real data: a few
# thousand rows of the LOBSTER AMZN sample day and of a Binance capture, gzip'd without a name or a
# time stamp (gzip -n), so the same data gives the same bytes. The README's walk and the docs tests
# read them, so a fresh clone needs nothing else.
# Usage: tools/cut-fixtures.sh [SHARED_DATA_DIR]   (default ../shared/data beside the checkout)
set -eu
cd "$(dirname "$0")/.."
data=${1:-../shared/data}
lob=$data/lobster/AMZN_2012-06-21_34200000_57600000
mkdir -p fixtures/lobster fixtures/binance
# LOBSTER, AMZN 2012-06-21, level 1: the first 30 minutes of the day (9:30 to 10:00 New York time,
# 34,200,000 to 36,000,000 ms after midnight, as the LOBSTER file name says): the message rows whose
# time (column 1, seconds after midnight) is before 36000, and the same rows of the order book (row i of
# one is row i of the other).
rows=$(gzip -dc "$lob"_message_1.csv.gz | awk -F, '$1 < 36000' | wc -l)
out=fixtures/lobster/AMZN_2012-06-21_34200000_36000000
gzip -dc "$lob"_message_1.csv.gz | head -n "$rows" | gzip -9n >"$out"_message_1.csv.gz
gzip -dc "$lob"_orderbook_1.csv.gz | head -n "$rows" | gzip -9n >"$out"_orderbook_1.csv.gz
# Binance spot BTCUSDT, the capture of 2024-08-08 (one JSON message per line after its receive time):
# its first 4000 lines (the first 38 seconds).
gzip -dc "$data"/binance/spot_btcusdt_20240808.gz | head -n 4000 | gzip -9n \
  >fixtures/binance/spot_btcusdt_20240808_first4000.gz
ls -l fixtures/lobster fixtures/binance
