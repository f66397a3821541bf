module submatch

go 1.26
