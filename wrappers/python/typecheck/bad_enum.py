# bad_enum.py — an item type where a wait mode is expected: mypy must refuse it.
from mqlink import MK_TYPE_I32, MqContextC

MqContextC.Create().ProcessEvent(MK_TYPE_I32, 1000)
