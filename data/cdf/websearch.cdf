# Braid flow-size CDF (format: braid-cdf v1)
# name: websearch
# source: Web Search cluster flow sizes, Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010
#   (Fig. 4); points as shipped with the HPCC ns-3 traffic generator (traffic_gen/WebSearch_distribution.txt)
#   and the LCMP EuroSys'26 artifact (flowCDF/WebSearch_distribution.txt), converted from percent to fractions.
# used by: Rondo (arXiv 2611.04594) "Web Search [6]"; LCMP evaluation.
# points: 12; mean (trapezoid rule over the points) = 1711250 B
# format: one point per line, `<size_bytes> <cumulative_fraction>`; sizes and fractions
#   non-decreasing, the last fraction is 1; samples interpolate linearly between points.
0 0
10000 0.15
20000 0.2
30000 0.3
50000 0.4
80000 0.53
200000 0.6
1000000 0.7
2000000 0.8
5000000 0.9
10000000 0.97
30000000 1
