package pbe_test

import (
	"errors"

	"github.com/submatch/submatch/internal/sharedtest"
)

var testingLong = sharedtest.Long()

func errorsIs(err, target error) bool { return errors.Is(err, target) }
