package org.mqlink;

/**
 * A service, server setup or call callback that takes the context it runs
 * on: a lambda {@code ctx -> ...} or a method reference
 * {@code Server::Method} (a method of the server class without arguments,
 * run on the instance).  An exception it throws becomes the context's error.
 *
 * @param <T> the context class the callback runs on
 */
@FunctionalInterface
public interface MqServiceIF<T extends MqContextC> {
    /** Run the callback on ctx. */
    void Call(T ctx) throws Exception;
}
