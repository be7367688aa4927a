# performance/local.mk — the performance suite's own tests (TAP) and the
# scripts it is made of.  The suite itself runs from build.bash (`test`).
TESTS += performance/results_test.sh performance/pipeline_test.sh performance/scaling_test.sh
dist_check_SCRIPTS += performance/results_test.sh performance/pipeline_test.sh performance/scaling_test.sh
EXTRA_DIST += results.bash performance/performance.bash performance/results.awk performance/perfheader.awk performance/tap.sh performance/mp_baseline.py performance/scaling.bash performance/scaling.awk \
	performance/sock_baseline.tcl performance/sock_baseline.rb performance/SockBaseline.java \
	performance/languages.tab performance/testdata

# the soak (performance/soak.bash, run by hand: README.md, "Soak"); make
# check runs the same script at a tiny size so it cannot rot
check_PROGRAMS += performance/soak_client
performance_soak_client_LDADD = link/libmqlink.la kernel/libmkkernel.la
TESTS += performance/soak_test.sh
dist_check_SCRIPTS += performance/soak_test.sh performance/soak.bash
