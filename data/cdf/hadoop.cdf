# Braid flow-size CDF (format: braid-cdf v1)
# name: hadoop
# source: Facebook Hadoop cluster flow sizes, Roy et al., "Inside the Social Network's (Datacenter)
#   Network", SIGCOMM 2015; points as shipped with the HPCC ns-3 traffic generator (FbHdp_distribution.txt)
#   and the LCMP EuroSys'26 artifact (flowCDF/FbHdp_distribution2015.txt), converted from percent to fractions.
# points: 20; mean (trapezoid rule over the points) = 120421 B
# format: one point per line, `<size_bytes> <cumulative_fraction>`; sizes and fractions
#   non-decreasing, the last fraction is 1; samples interpolate linearly between points.
0 0
100 0.01
200 0.02
300 0.05
350 0.15
400 0.2
500 0.3
600 0.4
700 0.5
1000 0.6
2000 0.67
7000 0.7
30000 0.72
50000 0.82
80000 0.87
120000 0.9
300000 0.95
1000000 0.975
2000000 0.99
10000000 1
