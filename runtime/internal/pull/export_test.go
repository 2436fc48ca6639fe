package pull

// SetDefaultLoadFolder sets the loader of the tests' pulls that name none: the package's
// own tests read folders and git repositories as the CLI's pulls do (loaddir_test.go).
func SetDefaultLoadFolder(l FolderLoader) { defaultLoadFolder = l }
