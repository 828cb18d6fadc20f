package meta

import (
	"fmt"
)

// checkCreate validates a Create's path and mode the same way in both stores.
func checkCreate(path string, mode CreateMode) error {
	if !mode.valid() {
		return fmt.Errorf("%w: unknown create mode %d", ErrInvalidPath, int(mode))
	}
	if err := validatePath(path, mode.IsSequential()); err != nil {
		return err
	}
	if path == "/" && !mode.IsSequential() {
		return ErrNodeExists
	}
	return nil
}

// checkDelete validates a Delete's path; the root can never be deleted.
func checkDelete(path string) error {
	if err := ValidatePath(path); err != nil {
		return err
	}
	if path == "/" {
		return fmt.Errorf("%w: the root cannot be deleted", ErrInvalidPath)
	}
	return nil
}

// normalizeOps dereferences pointer ops and validates every op up front, so
// both stores reject a malformed Multi identically and before any change.
// On failure it returns the index of the bad op.
func normalizeOps(ops []Op) ([]Op, int, error) {
	out := make([]Op, len(ops))
	for i, op := range ops {
		var err error
		switch o := op.(type) {
		case CreateOp:
			out[i], err = o, checkCreate(o.Path, o.Mode)
		case *CreateOp:
			if o == nil {
				return out, i, fmt.Errorf("%w: nil op", ErrInvalidPath)
			}
			out[i], err = *o, checkCreate(o.Path, o.Mode)
		case SetOp:
			out[i], err = o, ValidatePath(o.Path)
		case *SetOp:
			if o == nil {
				return out, i, fmt.Errorf("%w: nil op", ErrInvalidPath)
			}
			out[i], err = *o, ValidatePath(o.Path)
		case DeleteOp:
			out[i], err = o, checkDelete(o.Path)
		case *DeleteOp:
			if o == nil {
				return out, i, fmt.Errorf("%w: nil op", ErrInvalidPath)
			}
			out[i], err = *o, checkDelete(o.Path)
		case CheckOp:
			out[i], err = o, ValidatePath(o.Path)
		case *CheckOp:
			if o == nil {
				return out, i, fmt.Errorf("%w: nil op", ErrInvalidPath)
			}
			out[i], err = *o, ValidatePath(o.Path)
		default:
			return out, i, fmt.Errorf("%w: nil op", ErrInvalidPath)
		}
		if err != nil {
			return out, i, err
		}
	}
	return out, -1, nil
}

// failedMulti builds the result of a Multi whose op bad failed with err:
// that op carries err, every other op ErrRolledBack.
func failedMulti(ops []Op, bad int, err error) ([]OpResult, error) {
	results := make([]OpResult, len(ops))
	for i, op := range ops {
		if op != nil {
			results[i].Path = op.opPath()
		}
		results[i].Err = ErrRolledBack
	}
	path := ""
	if bad >= 0 && bad < len(ops) {
		results[bad].Err = err
		if ops[bad] != nil {
			path = ops[bad].opPath()
		}
	}
	return results, fmt.Errorf("meta: multi op %d (%q) of %d: %w", bad, path, len(ops), err)
}
