# fuzz/local.mk — fuzzing in the tree (README.md, "Fuzzing").
#
# Every build: each target's source linked with replay.c into a test that
# runs it over fuzz/corpus/TARGET/ and fuzz/crashes/TARGET/ (make check),
# and fuzz_seeds, which writes the seed corpus from real frames.
# --enable-fuzz (clang, build.bash fuzz): the libFuzzer programs as well.
noinst_HEADERS += fuzz/fuzz.h fuzz/frames.h fuzz/harness.h
EXTRA_DIST += fuzz/fuzz.dict fuzz/corpus fuzz/crashes

# internals (frames, harness): the objects, not the libraries (link/local.mk)
FUZZ_LIBS = link/libmqlink_objs.la kernel/libmkkernel_objs.la $(THREAD_LIBS)
FUZZ_SERVER_SOURCES = fuzz/fuzz_server.c fuzz/frames.c fuzz/harness.c

FUZZ_REPLAY = fuzz/fuzz_stream_replay fuzz/fuzz_frame_replay fuzz/fuzz_server_replay
check_PROGRAMS += $(FUZZ_REPLAY) fuzz/fuzz_seeds
TESTS += $(FUZZ_REPLAY)
fuzz_fuzz_stream_replay_SOURCES = fuzz/fuzz_stream.c fuzz/replay.c
fuzz_fuzz_stream_replay_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_TARGET='"fuzz_stream"'
fuzz_fuzz_stream_replay_LDADD = $(FUZZ_LIBS)
fuzz_fuzz_frame_replay_SOURCES = fuzz/fuzz_frame.c fuzz/replay.c
fuzz_fuzz_frame_replay_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_TARGET='"fuzz_frame"'
fuzz_fuzz_frame_replay_LDADD = $(FUZZ_LIBS)
fuzz_fuzz_server_replay_SOURCES = $(FUZZ_SERVER_SOURCES) fuzz/replay.c
fuzz_fuzz_server_replay_CPPFLAGS = $(AM_CPPFLAGS) -DFUZZ_TARGET='"fuzz_server"'
fuzz_fuzz_server_replay_LDADD = $(FUZZ_LIBS)
fuzz_fuzz_seeds_SOURCES = fuzz/seeds.c fuzz/frames.c fuzz/harness.c
fuzz_fuzz_seeds_LDADD = $(FUZZ_LIBS)

if FUZZ
noinst_PROGRAMS += fuzz/fuzz_stream fuzz/fuzz_frame fuzz/fuzz_server
fuzz_fuzz_stream_SOURCES = fuzz/fuzz_stream.c
fuzz_fuzz_stream_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
fuzz_fuzz_stream_LDADD = $(FUZZ_LIBS)
fuzz_fuzz_frame_SOURCES = fuzz/fuzz_frame.c
fuzz_fuzz_frame_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
fuzz_fuzz_frame_LDADD = $(FUZZ_LIBS)
fuzz_fuzz_server_SOURCES = $(FUZZ_SERVER_SOURCES)
fuzz_fuzz_server_LDFLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
fuzz_fuzz_server_LDADD = $(FUZZ_LIBS)
endif
