#!/bin/sh
# sed swaps every pair of hex bytes, gzip compresses what sed writes: two processes, one pipe
sed -E 's/([0-9a-f]{2}) ([0-9a-f]{2})/\2 \1/g' in2.txt | gzip -6 > /dev/null
