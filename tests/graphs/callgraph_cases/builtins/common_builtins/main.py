values = [3, 1, 2]
count = len(values)
ordered = sorted(values)
largest = max(values)
total = sum(values)
print(count, ordered, largest, total)
