/* Placeholder replaced below */
void test_onnxio_fields_register (void);
void test_onnxio_fields_register (void) {}
