# bad_argv_str.py — a string where the argument list is expected: mypy must refuse it.
from mqlink import MqContextC

MqContextC.Create().LinkCreate("client @ perfserver-python")
