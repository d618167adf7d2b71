void test_onnxio_bad_register (void);
void test_onnxio_bad_register (void) {}
