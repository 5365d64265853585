# Braid flow-size CDF (format: braid-cdf v1)
# name: cachefollower
# source: Facebook cache-follower cluster flow sizes, Roy et al., "Inside the Social Network's
#   (Datacenter) Network", SIGCOMM 2015 (flow-size CDF, cache follower, all traffic).
#   Not in the shared LCMP data. Points are a digitisation of the paper's figure as shipped with the
#   Parsimon/m3 simulator evaluation repository github.com/uw-polestar/parsimon-eval, file
#   workload/distributions/facebook/cachefollower-all.txt (its *-extract.csv gives the same curve in KB)
#   (sizes in bytes, CDF in percent; converted here to fractions rounded to 10 decimals).
# used by: Rondo (arXiv 2611.04594) "Cache Follower [58]".
# points: 40; mean (trapezoid rule over the points) = 609883 B
# format: one point per line, `<size_bytes> <cumulative_fraction>`; sizes and fractions
#   non-decreasing, the last fraction is 1; samples interpolate linearly between points.
0 0
51 0.0036929504
71 0.0055897014
76 0.0287714716
133 0.0316110325
183 0.0451042341
271 0.0547249025
321 0.0711322438
349 0.1609785781
436 0.1764141685
484 0.2459683838
561 0.2710736197
651 0.2758889629
731 0.3116255772
913 0.3299597237
1037 0.3357434785
1323 0.3608386964
2421 0.395557922
3779 0.4196658052
6155 0.4389383092
11629 0.4668908979
18938 0.4909943287
31169 0.5170290171
46628 0.5421075382
73544 0.5749099767
113561 0.6086808267
173480 0.6492160875
233326 0.690730891
304021 0.7254857363
431276 0.7544345645
694981 0.774674367
1120120 0.7852523157
1640451 0.8112992485
1984136 0.8557237393
2300215 0.8972541264
2610206 0.9484485935
2900867 0.9783892087
4386575 0.9947709484
12540802 0.9975593059
28388498 1
