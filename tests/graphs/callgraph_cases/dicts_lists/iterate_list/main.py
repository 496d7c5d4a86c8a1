def check_disk():
    return True


def check_net():
    return True


def check_cpu():
    return True


def run_checks():
    for check in [check_disk, check_net]:
        check()


run_checks()
