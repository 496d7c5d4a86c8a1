def notify(msg):
    return msg


def make_alert(level):
    def alert(msg):
        return notify(level + msg)

    return alert


warn = make_alert("W:")
warn("disk")
