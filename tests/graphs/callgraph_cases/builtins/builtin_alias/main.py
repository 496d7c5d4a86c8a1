show = print
measure = len


def report(data):
    show(measure(data))


report("abc")
