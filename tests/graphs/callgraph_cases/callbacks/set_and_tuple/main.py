def alpha():
    return "a"


def beta():
    return "b"


def gamma():
    return "g"


for fn in {alpha, beta}:
    fn()
hooks = (beta, gamma)
hooks[1]()
