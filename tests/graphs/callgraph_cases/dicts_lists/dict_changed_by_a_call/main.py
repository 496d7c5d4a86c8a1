def first():
    return 1


def second():
    return 2


table = {"run": first}


def swap():
    table["run"] = second


swap()
table["run"]()
