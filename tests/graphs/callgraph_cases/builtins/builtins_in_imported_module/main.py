import util

print(util.describe(5))
