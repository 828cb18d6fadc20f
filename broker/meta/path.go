package meta

import (
	"fmt"
	"strconv"
	"strings"
)

// SequenceDigits is the width of the suffix a sequential create appends.
const SequenceDigits = 10

// ValidatePath checks that p is a znode path as ZooKeeper's PathUtils does:
// absolute, no empty, "." or ".." components, no trailing slash except the
// root, no NUL or other control characters.
func ValidatePath(p string) error { return validatePath(p, false) }

// validatePath allows a trailing slash for sequential creates, where the
// server appends the suffix directly ("/parent/" -> "/parent/0000000003").
func validatePath(p string, sequential bool) error {
	if p == "" || p[0] != '/' {
		return fmt.Errorf("%w: %q is not absolute", ErrInvalidPath, p)
	}
	if p == "/" {
		return nil
	}
	check := p
	if sequential && strings.HasSuffix(p, "/") {
		check = p[:len(p)-1]
		if check == "" {
			return nil
		}
	}
	if strings.HasSuffix(check, "/") {
		return fmt.Errorf("%w: %q has a trailing slash", ErrInvalidPath, p)
	}
	for _, part := range strings.Split(check[1:], "/") {
		switch part {
		case "":
			return fmt.Errorf("%w: %q has an empty component", ErrInvalidPath, p)
		case ".", "..":
			return fmt.Errorf("%w: %q has a relative component", ErrInvalidPath, p)
		}
	}
	for _, r := range check {
		// The ranges ZooKeeper's PathUtils.validatePath rejects.
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || (r >= 0xd800 && r <= 0xf8ff) || (r >= 0xfff0 && r <= 0xffff) {
			return fmt.Errorf("%w: %q has an invalid character %U", ErrInvalidPath, p, r)
		}
	}
	return nil
}

// JoinPath joins a parent path and a child name.
func JoinPath(parent, child string) string {
	if parent == "/" {
		return "/" + child
	}
	return parent + "/" + child
}

// ParentPath returns the parent of a validated path; the root's parent is "".
func ParentPath(p string) string {
	if p == "/" {
		return ""
	}
	i := strings.LastIndexByte(p, '/')
	if i == 0 {
		return "/"
	}
	return p[:i]
}

// BaseName returns the last component of a validated path.
func BaseName(p string) string {
	return p[strings.LastIndexByte(p, '/')+1:]
}

// SequenceNumber returns the counter a sequential create appended to name
// (a child name or a path): the trailing SequenceDigits digits.
func SequenceNumber(name string) (int64, error) {
	if len(name) < SequenceDigits {
		return 0, fmt.Errorf("meta: %q has no %d-digit sequence suffix", name, SequenceDigits)
	}
	n, err := strconv.ParseInt(name[len(name)-SequenceDigits:], 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("meta: %q has no %d-digit sequence suffix", name, SequenceDigits)
	}
	return n, nil
}

// sequentialName is the name ZooKeeper gives a sequential znode: the
// requested path plus the parent's cversion before the create, %010d.
func sequentialName(p string, parentCversion int32) string {
	return fmt.Sprintf("%s%0*d", p, SequenceDigits, parentCversion)
}
