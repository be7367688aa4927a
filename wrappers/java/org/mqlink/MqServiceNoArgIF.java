package org.mqlink;

/**
 * A service or call callback without arguments: a bound method reference
 * {@code this::Method} or a lambda {@code () -> ...}.  An exception it throws
 * becomes the context's error.
 */
@FunctionalInterface
public interface MqServiceNoArgIF {
    /** Run the callback. */
    void Call() throws Exception;
}
