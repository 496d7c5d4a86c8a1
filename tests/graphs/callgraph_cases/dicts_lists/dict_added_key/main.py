def start():
    return "start"


def stop():
    return "stop"


def restart():
    return "restart"


commands = {"start": start}
commands["stop"] = stop
commands["stop"]()
