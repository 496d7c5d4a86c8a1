def ping():
    return "ping"


def pong():
    return "pong"


actions = [lambda: ping(), lambda: pong()]
for action in actions:
    action()
