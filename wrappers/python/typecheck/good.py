# good.py — uses the API as documented; mypy must accept it (stubs_test).
import mqlink
from mqlink import MQ_WAIT_ONCE, MK_TYPE_I32, MqContextC


class Server(MqContextC):
    def ecul(self) -> None:  # a bound method: called without arguments
        self.SendSTART()
        self.SendI32(self.ReadI32())
        self.SendRETURN()

    def setup(self) -> None:
        self.ServiceCreate("ECUL", self.ecul)
        self.ServiceCreate("RDUL", lambda ctx: ctx.ReadI32())  # gets the context


def answer(ctx: Server) -> None:
    print(ctx.ReadI32())


def main() -> None:
    srv = Server.Create()
    srv.ConfigSetServerSetup(Server.setup)
    cli = Server.Create()
    cli.LinkCreate(["client", "@", "perfserver-python"])
    cli.SendSTART()
    cli.SendEND_AND_CALLBACK("ECUL", answer)
    cli.ProcessEvent(MQ_WAIT_ONCE, 1000)
    print(mqlink.MkTypeName(MK_TYPE_I32))
