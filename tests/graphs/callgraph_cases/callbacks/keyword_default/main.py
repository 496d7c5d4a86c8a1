def notify(value):
    return value


def run(value, on_done=notify):
    return on_done(value)


run(1)
