/* perffloor.c — the floor of the Java row's one-way columns: C calling the
 * perfserver's empty Java service (NTHT, as the library registers it: a
 * MqServiceNoArgIF made from this::NTHT) through JNI, CallVoidMethod on
 * cached IDs, N times after a warm-up.  Prints one line like perfclient:
 *   floor-java ops/s=X count=N sec=S
 *
 *   perffloor-java [--sec S] [--num N]
 * The JVM gets the installed mqlink.jar and perfserver.jar on its class path
 * (MQJ_JARDIR, MQJ_DATADIR) and the installed JNI library. */
#include <jni.h>
#include <stdio.h>

#include "floor.h" /* perfclient/: floor_size, floor_done, floor_options, floor_report */

static int
fail(JNIEnv *env, const char *what)
{
    if (env && (*env)->ExceptionCheck(env))
        (*env)->ExceptionDescribe(env);
    fprintf(stderr, "perffloor-java: %s\n", what);
    return 1;
}

int
main(int argc, char **argv)
{
    floor_size z = {0, 1.0};
    const char *unused = NULL;
    double t0, t;
    long n = 0;
    JavaVMOption opts[2];
    JavaVMInitArgs vmargs = {JNI_VERSION_1_8, 2, opts, JNI_FALSE};
    char cp[4096], lib[4096];
    JavaVM *vm;
    JNIEnv *env;

    floor_options(&z, argc, argv, &unused);
    snprintf(cp, sizeof cp, "-Djava.class.path=%s/mqlink.jar:%s/perfserver.jar", MQJ_JARDIR,
             MQJ_DATADIR);
    snprintf(lib, sizeof lib, "-Dmqlink.library=%s/libmqlinkjni.so", MQJ_LIBDIR);
    opts[0].optionString = cp;
    opts[1].optionString = lib;
    if (JNI_CreateJavaVM(&vm, (void **)&env, &vmargs) != JNI_OK)
        return fail(NULL, "cannot create the JVM");

    jclass cls = (*env)->FindClass(env, "PerfServer");
    jmethodID init = cls ? (*env)->GetMethodID(env, cls, "<init>", "()V") : NULL;
    jmethodID mk = cls ? (*env)->GetStaticMethodID(env, cls, "floorService",
                                                   "(LPerfServer;)Lorg/mqlink/MqServiceNoArgIF;")
                       : NULL;
    jclass ifc = (*env)->FindClass(env, "org/mqlink/MqServiceNoArgIF");
    jmethodID call = ifc ? (*env)->GetMethodID(env, ifc, "Call", "()V") : NULL;
    if (!init || !mk || !call)
        return fail(env, "PerfServer or MqServiceNoArgIF not found");
    jobject srv = (*env)->NewObject(env, cls, init);
    jobject svc = srv ? (*env)->CallStaticObjectMethod(env, cls, mk, srv) : NULL;
    if (!svc)
        return fail(env, "cannot make the service");
    /* the callable's own Call (an interface's method ID is searched in the
     * itable on every JNI call; the runtime calls through ServiceSlots.callService) */
    jmethodID own = (*env)->GetMethodID(env, (*env)->GetObjectClass(env, svc), "Call", "()V");
    if (own)
        call = own;

    for (int i = 0; i < 200000; i++) /* warm-up: the JIT compiles the call path */
        (*env)->CallVoidMethod(env, svc, call);
    t0 = perf_now();
    do {
        for (int i = 0; i < 1000; i++)
            (*env)->CallVoidMethod(env, svc, call);
        n += 1000;
        t = perf_now() - t0;
    } while (!floor_done(&z, n, t));
    if ((*env)->ExceptionCheck(env))
        return fail(env, "the service threw");
    floor_report("floor-java", t / n, n, "");
    (*vm)->DestroyJavaVM(vm);
    return 0;
}
