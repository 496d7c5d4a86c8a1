class Logger:
    def write(self, msg):
        return msg


class TimestampLogger(Logger):
    def write(self, msg):
        return super(TimestampLogger, self).write("t " + msg)


class PrefixLogger(TimestampLogger):
    def write(self, msg):
        return super(TimestampLogger, self).write("p " + msg)


PrefixLogger().write("x")
TimestampLogger().write("y")
