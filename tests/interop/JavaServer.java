// JavaServer.java — the interop test server in Java (the same services as
// cserver.c, cxxserver.cc and pyserver.py):
//   ECHO  read a type name, then one item of that type; answer it
//   ELST  answer the next item (a nested list) unchanged
//   FAIL  read a text and fail with it (MkExceptionC, code 1234)
//   JAER  fail with a plain Java exception
//   WRNG  read a STR as I32; answer "caught: <error text>"
//   INST  answer a text naming this server instance
import org.mqlink.*;

public class JavaServer extends MqContextC {

    public void ServerSetup() {
        ServiceCreate("ECHO", this::ECHO);
        ServiceCreate("ELST", this::ELST);
        ServiceCreate("FAIL", this::FAIL);
        ServiceCreate("JAER", this::JAER);
        ServiceCreate("WRNG", this::WRNG);
        ServiceCreate("INST", this::INST);
    }

    void ECHO() {
        String t = ReadSTR();
        SendSTART();
        switch (t) {
        case "I8": SendI8(ReadI8()); break;
        case "I16": SendI16(ReadI16()); break;
        case "I32": SendI32(ReadI32()); break;
        case "I64": SendI64(ReadI64()); break;
        case "FLT": SendFLT(ReadFLT()); break;
        case "DBL": SendDBL(ReadDBL()); break;
        case "BOL": SendBOL(ReadBOL()); break;
        case "STR": SendSTR(ReadSTR()); break;
        case "BIN": SendBIN(ReadBIN()); break;
        default: throw new MkExceptionC("ECHO: unknown type " + t, 1235);
        }
        SendRETURN();
    }

    void ELST() {
        SendSTART();
        ProxyItem(this);
        SendRETURN();
    }

    void FAIL() {
        throw new MkExceptionC(ReadSTR(), 1234);
    }

    void JAER() {
        throw new IllegalArgumentException("java says no");
    }

    void WRNG() {
        String text;
        try {
            ReadI32();
            text = "not caught";
        } catch (MkExceptionC e) {
            text = "caught: " + e.getText();
        }
        SendSTART();
        SendSTR(text);
        SendRETURN();
    }

    void INST() {
        SendSTART();
        SendSTR("JavaServer:" + Integer.toHexString(System.identityHashCode(this)));
        SendRETURN();
    }

    public static void main(String[] args) {
        JavaServer srv = new JavaServer();
        try {
            srv.ConfigSetServerSetup(JavaServer::ServerSetup);
            String[] argv = new String[args.length + 1];
            argv[0] = "JavaServer";
            System.arraycopy(args, 0, argv, 1, args.length);
            srv.LinkCreate(argv);
            srv.ProcessEvent(MqLink.MQ_WAIT_FOREVER);
        } catch (MkExceptionC e) {
            System.err.println("JavaServer: " + e.getText());
            System.exit(1);
        } finally {
            srv.Delete();
        }
    }
}
