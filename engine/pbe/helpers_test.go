package pbe_test

import (
	"errors"

	"github.com/submatch/submatch/internal/testenv"
)

var testingLong = testenv.Long()

func errorsIs(err, target error) bool { return errors.Is(err, target) }
