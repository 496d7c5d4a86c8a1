def repeat(times):
    def decorate(fn):
        def wrapper():
            for _ in range(times):
                fn()

        return wrapper

    return decorate


@repeat(2)
def beep():
    return "beep"


beep()
