def task():
    return 1


def outer_runner(fn):
    return inner_runner(fn)


def inner_runner(job):
    return job()


a = b = task
outer_runner(b)
