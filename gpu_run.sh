#!/bin/bash
export TILEGEMM_CACHE_DIR=/tmp/tgcache
B=build/cli/tilegemm
S=$OUT/summary.txt
echo "commit $(cat build/COMMIT)" > $S
for cfg in 128x256 128x256,consumercopy 64x256 64x256,consumercopy; do
  timeout 100 $B bench --shape 4001x3999x64 --shape 4001x3999x256 --shape 4000x4000x64 --config $cfg --no-cublas --iters 15 --no-tuning > $OUT/f.txt 2>&1
  echo "== $cfg rc $?" >> $S; grep -E '^ +[0-9]+ +[0-9]+ +[0-9]+ ' $OUT/f.txt >> $S
done
for cfg in 128x256 128x256,consumercopy; do
  timeout 100 $B trace 4001 3999 256 --config $cfg --out $OUT/t.json --iters 5 > $OUT/tr.txt 2>&1
  echo "== trace $cfg rc $?" >> $S; grep -vE "^\s*$" $OUT/tr.txt | head -60 >> $S
done
rm -f $OUT/t.json
