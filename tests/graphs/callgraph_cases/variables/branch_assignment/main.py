def fast():
    return "fast"


def safe():
    return "safe"


def run(mode):
    if mode == "fast":
        impl = fast
    else:
        impl = safe
    return impl()


run("safe")
