# performance/local.mk — the performance suite's own tests (TAP) and the
# scripts it is made of.  The suite itself runs from build.bash (`test`).
TESTS += performance/results_test.sh performance/pipeline_test.sh performance/scaling_test.sh
dist_check_SCRIPTS += performance/results_test.sh performance/pipeline_test.sh performance/scaling_test.sh
EXTRA_DIST += results.bash performance/performance.bash performance/results.awk performance/tap.sh performance/mp_baseline.py performance/scaling.bash performance/scaling.awk \
	performance/sock_baseline.tcl performance/sock_baseline.rb performance/SockBaseline.java \
	performance/languages.tab performance/testdata
