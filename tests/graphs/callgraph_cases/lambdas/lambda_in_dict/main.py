def celsius(x):
    return x


HANDLERS = {
    "c": lambda x: celsius(x),
    "f": lambda x: celsius((x - 32) * 5 / 9),
}
HANDLERS["f"](212)
