def alpha():
    return "a"


def beta():
    return "b"


steps = [alpha, beta]
results = [step() for step in steps]
