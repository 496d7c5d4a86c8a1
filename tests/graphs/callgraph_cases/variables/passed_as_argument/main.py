def on_done():
    return "done"


def on_error():
    return "error"


def execute(callback):
    return callback()


execute(on_done)
execute(callback=on_error)
