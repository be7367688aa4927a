// PerfServer.java — the performance suite's server in Java: the reference's
// five services (../shared/reference/README_PERFORMANCE.txt) as Java methods;
// perfclient calls them over pipe, uds and tcp with --thread and --spawn.
// The reads that are passed on at once use the view forms ReadBUFR and
// IndexGetR (no copy), as the C++ server uses its MkBufferR.
//
//   java -jar PREFIX/share/mqlink/perfserver.jar [link options]
//   perfclient ... @ java -jar PREFIX/share/mqlink/perfserver.jar
import org.mqlink.*;

public class PerfServer extends MqContextC {

    public void ServerSetup() {
        ServiceCreate("NTHT", this::NTHT);
        ServiceCreate("RDUL", this::RDUL);
        ServiceCreate("ECUL", this::ECUL);
        ServiceCreate("BUST", this::BUST);
        ServiceCreate("BFLT", this::BFLT);
    }

    public void NTHT() {
    }

    public void RDUL() {
        ReadI8();
        ReadI16();
        ReadI32();
        ReadDBL();
        ReadBUFR();
    }

    public void ECUL() {
        SendSTART();
        SendI8(ReadI8());
        SendI16(ReadI16());
        SendI32(ReadI32());
        SendDBL(ReadDBL());
        ProxyItem(this);
        SendRETURN();
    }

    public void BUST() {
        MkBufferStreamC bus = MkBufferStreamC.CreateTLS("perfserver-BUST");
        while (ReadItemExists())
            bus.WriteBUF(ReadBUFR());
        bus.PosToStart();
        SendSTART();
        while (bus.ReadItemExists())
            SendBUF(bus.ReadBUFR());
        SendRETURN();
    }

    public void BFLT() {
        MkBufferListC bfl = MkBufferListC.CreateTLS("perfserver-BFLT");
        while (ReadItemExists())
            bfl.AppendBUF(ReadBUFR());
        SendSTART();
        for (int i = 0; i < bfl.Size(); i++)
            SendBUF(bfl.IndexGetR(i));
        SendRETURN();
    }

    /** The empty service as the library calls it (perffloor-java). */
    static MqServiceNoArgIF floorService(PerfServer srv) {
        return srv::NTHT;
    }

    public static void main(String[] args) {
        PerfServer srv = new PerfServer();
        try {
            srv.ConfigSetServerSetup(PerfServer::ServerSetup);
            String[] argv = new String[args.length + 1];
            argv[0] = "perfserver-java";
            System.arraycopy(args, 0, argv, 1, args.length);
            srv.LinkCreate(argv);
            srv.ProcessEvent(MqLink.MQ_WAIT_FOREVER);
        } catch (MkExceptionC e) {
            System.err.println("perfserver-java: " + e.getText());
            System.exit(1);
        } finally {
            srv.Delete();
        }
    }
}
