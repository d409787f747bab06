/*
 * Preloaded in sanitizer runs: keeps the host MPI's dlopen()ed components
 * mapped at exit, so LeakSanitizer can name them and the suppressions in
 * tests/lsan.supp apply. Without it their leaks show as "<unknown module>".
 */
int dlclose(void *handle);
int dlclose(void *handle) {
  (void)handle;
  return 0;
}
