def helper():
    return "global"


def outer():
    def helper():
        return "local"

    return helper()


def other():
    return helper()


outer()
other()
