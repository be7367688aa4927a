# wrappers/java/local.mk — the Java (JNI) binding: the JNI library
# libmqlinkjni.so (the hand-written runtime plus the generated glue), the jar
# mqlink.jar (package org.mqlink: hand-written base classes plus the
# generated classes), the perfserver jar, perffloor-java and the tests.
# Included from wrappers/local.mk.
EXTRA_DIST += \
	wrappers/java/org/mqlink/MkObjectC.java \
	wrappers/java/org/mqlink/MkExceptionC.java \
	wrappers/java/org/mqlink/MqServiceIF.java \
	wrappers/java/org/mqlink/MqServiceNoArgIF.java \
	wrappers/java/org/mqlink/MqNative.java.in \
	wrappers/java/PerfServer.java \
	wrappers/java/BaselineJava.java \
	wrappers/java/EmptyMain.java \
	wrappers/java/BindingTest.java \
	wrappers/java/EscapeTest.java \
	wrappers/java/binding_test.sh \
	tests/interop/JavaClient.java \
	tests/interop/JavaServer.java

if WITH_JAVA
MQJ_SRC = $(top_srcdir)/wrappers/java/org/mqlink
MQJ_HAND = $(MQJ_SRC)/MkObjectC.java $(MQJ_SRC)/MkExceptionC.java \
	$(MQJ_SRC)/MqServiceIF.java $(MQJ_SRC)/MqServiceNoArgIF.java
MQJ_JAVAC = $(JAVAC) -encoding UTF-8 -nowarn --release 17

# The generated C glue, and the generated classes: one text from the
# generator, split into one file per class on its "//// NAME.java" lines.
wrappers/java/gen/glue.c: $(MQGEN_DEPS)
	$(AM_V_GEN)$(MKDIR_P) wrappers/java/gen && $(MQGEN) $(MQAPI) java-glue $@
wrappers/java/gen/classes.stamp: $(MQGEN_DEPS)
	$(AM_V_GEN)rm -rf wrappers/java/gen/org && $(MKDIR_P) wrappers/java/gen/org/mqlink && \
	  $(MQGEN) $(MQAPI) java-classes wrappers/java/gen/classes.txt && \
	  $(AWK) '/^\/\/\/\/ /{ f = "wrappers/java/gen/org/mqlink/" $$2; next } { print > f }' \
	    wrappers/java/gen/classes.txt && touch $@
wrappers/java/gen/org/mqlink/MqNative.java: $(MQJ_SRC)/MqNative.java.in wrappers/java/gen/classes.stamp
	$(AM_V_GEN)sed -e 's|%%LIBDIR%%|$(libdir)|' $< > $@
wrappers/java/gen/glue.h: $(MQGEN_DEPS)
	$(AM_V_GEN)$(MKDIR_P) wrappers/java/gen && $(MQGEN) $(MQAPI) java-h $@
BUILT_SOURCES += wrappers/java/gen/glue.c wrappers/java/gen/glue.h

# The JNI library: a shared module named as System.loadLibrary expects.
lib_LTLIBRARIES += wrappers/java/libmqlinkjni.la
wrappers_java_libmqlinkjni_la_SOURCES = wrappers/java/runtime.c wrappers/java/convert.c wrappers/java/callback.c wrappers/java/refs.c \
	wrappers/java/runtime.h
nodist_wrappers_java_libmqlinkjni_la_SOURCES = wrappers/java/gen/glue.c wrappers/java/gen/glue.h
wrappers_java_libmqlinkjni_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/wrappers/java \
	-I$(top_builddir)/wrappers/java $(JNI_CPPFLAGS)
wrappers_java_libmqlinkjni_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden -Wno-missing-field-initializers
wrappers_java_libmqlinkjni_la_LDFLAGS = -module -avoid-version -shared
wrappers_java_libmqlinkjni_la_LIBADD = link/libmqlink.la kernel/libmkkernel.la

# mqlink.jar: every class of org.mqlink.
wrappers/java/mqlink.jar: wrappers/java/gen/classes.stamp wrappers/java/gen/org/mqlink/MqNative.java $(MQJ_HAND)
	$(AM_V_GEN)rm -rf wrappers/java/classes && $(MKDIR_P) wrappers/java/classes && \
	  $(MQJ_JAVAC) -d wrappers/java/classes $(MQJ_HAND) wrappers/java/gen/org/mqlink/*.java && \
	  $(JAR) cf $@ -C wrappers/java/classes .

# perfserver.jar: the perfserver (Main-Class), the JDK baseline and the
# empty main of the bare JVM start, finding mqlink.jar where it is installed
# (share/java beside share/mqlink).
wrappers/java/perfserver.jar: $(top_srcdir)/wrappers/java/PerfServer.java \
		$(top_srcdir)/wrappers/java/BaselineJava.java \
		$(top_srcdir)/wrappers/java/EmptyMain.java wrappers/java/mqlink.jar
	$(AM_V_GEN)rm -rf wrappers/java/perfclasses && $(MKDIR_P) wrappers/java/perfclasses && \
	  $(MQJ_JAVAC) -cp wrappers/java/mqlink.jar -d wrappers/java/perfclasses \
	    $(top_srcdir)/wrappers/java/PerfServer.java $(top_srcdir)/wrappers/java/BaselineJava.java \
	    $(top_srcdir)/wrappers/java/EmptyMain.java && \
	  printf 'Main-Class: PerfServer\nClass-Path: ../java/mqlink.jar\n' > wrappers/java/perfserver.mf && \
	  $(JAR) cfm $@ wrappers/java/perfserver.mf -C wrappers/java/perfclasses .

javadir = $(datadir)/java
nodist_java_DATA = wrappers/java/mqlink.jar
mqlinkdatadir = $(datadir)/mqlink
nodist_mqlinkdata_DATA = wrappers/java/perfserver.jar

# The floor: C calling the perfserver's empty service through JNI.
bin_PROGRAMS += wrappers/java/perffloor-java
wrappers_java_perffloor_java_SOURCES = wrappers/java/perffloor.c
wrappers_java_perffloor_java_CPPFLAGS = $(AM_CPPFLAGS) $(JNI_CPPFLAGS) -I$(top_srcdir)/perfclient \
	-DMQJ_JARDIR='"$(javadir)"' -DMQJ_DATADIR='"$(mqlinkdatadir)"' -DMQJ_LIBDIR='"$(libdir)"'
wrappers_java_perffloor_java_LDADD = -L$(JVM_LIBDIR) -ljvm
wrappers_java_perffloor_java_LDFLAGS = -Wl,-rpath,$(JVM_LIBDIR)

# Tests: the binding's own cases in one JVM, and the interop classes.
MQJ_TEST_CP = $(abs_top_builddir)/wrappers/java/mqlink.jar:$(abs_top_builddir)/wrappers/java/testclasses
MQJ_RUN = $(JAVA) -Xshare:auto -XX:TieredStopAtLevel=1 \
	-Dmqlink.library=$(abs_top_builddir)/wrappers/java/.libs/libmqlinkjni.so -cp $(MQJ_TEST_CP)
wrappers/java/testclasses.stamp: wrappers/java/mqlink.jar $(top_srcdir)/wrappers/java/BindingTest.java \
		$(top_srcdir)/wrappers/java/EscapeTest.java \
		$(top_srcdir)/tests/interop/JavaClient.java $(top_srcdir)/tests/interop/JavaServer.java
	$(AM_V_GEN)rm -rf wrappers/java/testclasses && $(MKDIR_P) wrappers/java/testclasses && \
	  $(MQJ_JAVAC) -cp wrappers/java/mqlink.jar -d wrappers/java/testclasses \
	    $(top_srcdir)/wrappers/java/BindingTest.java $(top_srcdir)/wrappers/java/EscapeTest.java \
	    $(top_srcdir)/tests/interop/JavaClient.java $(top_srcdir)/tests/interop/JavaServer.java && \
	  touch $@
wrappers/java/java-binding.sh: Makefile
	$(AM_V_GEN)$(MKDIR_P) wrappers/java && { echo '$(INTEROP_ENV)'; \
	  echo 'exec $(MQJ_RUN) BindingTest'; } > $@ && chmod +x $@
# EscapeTest with the JVM's default compilers: C2's escape analysis is what it checks.
wrappers/java/java-escape.sh: Makefile
	$(AM_V_GEN)$(MKDIR_P) wrappers/java && { echo '$(INTEROP_ENV)'; \
	  echo 'exec $(JAVA) -Xshare:auto -Dmqlink.library=$(abs_top_builddir)/wrappers/java/.libs/libmqlinkjni.so -cp $(MQJ_TEST_CP) EscapeTest'; } > $@ && chmod +x $@
check_DATA += wrappers/java/testclasses.stamp wrappers/java/perfserver.jar
WRAPPER_TESTS += wrappers/java/java-binding.sh wrappers/java/java-escape.sh
CLEANFILES += wrappers/java/java-binding.sh wrappers/java/java-escape.sh wrappers/java/mqlink.jar wrappers/java/perfserver.jar \
	wrappers/java/perfserver.mf wrappers/java/gen/glue.c wrappers/java/gen/glue.h wrappers/java/gen/classes.txt \
	wrappers/java/gen/classes.stamp wrappers/java/testclasses.stamp

clean-local: clean-java
clean-java:
	rm -rf wrappers/java/classes wrappers/java/perfclasses wrappers/java/testclasses \
	  wrappers/java/gen/org
endif
