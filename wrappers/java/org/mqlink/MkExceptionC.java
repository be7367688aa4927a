package org.mqlink;

/**
 * An mqlink call failed: the text and the code of the C error.  Thrown by
 * every method whose C call fails; thrown by a service, it becomes the error
 * the caller on the other side receives (with its text and code).
 */
public class MkExceptionC extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The error text (read by the JNI library). */
    final String text;
    /** The error code, MK_ERR_* or MQ_ERR_* (read by the JNI library). */
    final int code;

    /** An error with its text and code (MqLink.MK_ERR_USER and up are the application's). */
    public MkExceptionC(String text, int code) {
        super(text);
        this.text = text == null ? "" : text;
        this.code = code;
    }

    /** An error with code MqLink.MK_ERR_USER. */
    public MkExceptionC(String text) {
        this(text, 1000);
    }

    /** The error text. */
    public String getText() {
        return text;
    }

    /** The error code. */
    public int getCode() {
        return code;
    }
}
