# bad_callback_arity.py — a service taking two arguments (it gets one): mypy must refuse it.
from mqlink import MqContextC


def service(ctx: MqContextC, extra: int) -> None:
    pass


MqContextC.Create().ServiceCreate("ECUL", service)
