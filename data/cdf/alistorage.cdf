# Braid flow-size CDF (format: braid-cdf v1)
# name: alistorage
# source: Alibaba storage cluster flow sizes (2019), as shipped in the LCMP EuroSys'26 artifact
#   (flowCDF/AliStorage2019.txt), converted from percent to fractions.
# points: 9; mean (trapezoid rule over the points) = 40870 B
# format: one point per line, `<size_bytes> <cumulative_fraction>`; sizes and fractions
#   non-decreasing, the last fraction is 1; samples interpolate linearly between points.
0 0
4000 0.2293
8000 0.6921
16000 0.8061
32000 0.9047
64000 0.9353
128000 0.9677
256000 0.9753
2000000 1
