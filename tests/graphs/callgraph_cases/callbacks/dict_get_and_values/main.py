def start():
    return 1


def stop():
    return 0


ACTIONS = {"start": start, "stop": stop}
ACTIONS.get("start")()
for action in ACTIONS.values():
    action()
for name, action in ACTIONS.items():
    action()
