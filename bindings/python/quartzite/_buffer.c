/* quartzite._buffer: the buffer protocol (PEP 3118) for the Python package's
 * pixel objects, which are otherwise plain ctypes wrappers.
 *
 * A pure-Python class cannot export a buffer before Python 3.12 (PEP 688),
 * so this module gives one base class, Exporter, whose getbuffer slot asks
 * the object for its layout and hands out its memory without a copy:
 *
 *     obj._buffer_layout() -> (address, readonly, format, itemsize, shape, strides)
 *
 * address is the first item's address (an int), format a struct-module
 * format ("B", ">H", ...), shape and strides tuples of equal length in items
 * and bytes. The object (which keeps its memory alive) is the exporter of
 * every view. Built against the limited API of 3.11: one binary for every
 * later CPython. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DIMENSIONS = 8, FORMAT_CAPACITY = 16 };

/* What a view points into for its lifetime: its shape, strides and format. */
typedef struct {
    Py_ssize_t shape[MAX_DIMENSIONS];
    Py_ssize_t strides[MAX_DIMENSIONS];
    char format[FORMAT_CAPACITY];
} ViewLayout;

static int read_sizes(PyObject *tuple, Py_ssize_t *out, Py_ssize_t count, const char *what) {
    for (Py_ssize_t i = 0; i < count; i++) {
        out[i] = PyLong_AsSsize_t(PyTuple_GetItem(tuple, i));
        if (out[i] == -1 && PyErr_Occurred()) return -1;
        if (out[i] < 0 && strcmp(what, "shape") == 0) {
            PyErr_SetString(PyExc_ValueError, "_buffer_layout: negative shape");
            return -1;
        }
    }
    return 0;
}

static int is_c_contiguous(const ViewLayout *layout, int ndim, Py_ssize_t itemsize) {
    Py_ssize_t expected = itemsize;
    for (int i = ndim - 1; i >= 0; i--) {
        if (layout->shape[i] > 1 && layout->strides[i] != expected) return 0;
        expected *= layout->shape[i];
    }
    return 1;
}

static int exporter_getbuffer(PyObject *self, Py_buffer *view, int flags) {
    PyObject *result = PyObject_CallMethod(self, "_buffer_layout", NULL);
    if (result == NULL) return -1;
    unsigned long long address = 0;
    int readonly = 0;
    const char *format = NULL;
    Py_ssize_t itemsize = 0;
    PyObject *shape = NULL, *strides = NULL;
    if (!PyArg_ParseTuple(result, "KpsnO!O!;_buffer_layout() returns (address, readonly, format, itemsize, shape, strides)",
                          &address, &readonly, &format, &itemsize, &PyTuple_Type, &shape, &PyTuple_Type, &strides)) {
        Py_DECREF(result);
        return -1;
    }
    Py_ssize_t ndim = PyTuple_Size(shape);
    if (ndim < 1 || ndim > MAX_DIMENSIONS || PyTuple_Size(strides) != ndim || itemsize < 1 ||
        strlen(format) >= FORMAT_CAPACITY) {
        Py_DECREF(result);
        PyErr_SetString(PyExc_ValueError, "_buffer_layout: bad dimensions, item size or format");
        return -1;
    }
    ViewLayout *layout = PyMem_Malloc(sizeof *layout);
    if (layout == NULL) {
        Py_DECREF(result);
        PyErr_NoMemory();
        return -1;
    }
    strcpy(layout->format, format);
    if (read_sizes(shape, layout->shape, ndim, "shape") < 0 || read_sizes(strides, layout->strides, ndim, "strides") < 0) {
        Py_DECREF(result);
        PyMem_Free(layout);
        return -1;
    }
    Py_DECREF(result);

    if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && readonly) {
        PyMem_Free(layout);
        PyErr_SetString(PyExc_BufferError, "the pixel buffer is locked read-only: its view cannot be writable");
        return -1;
    }
    Py_ssize_t count = 1;
    for (int i = 0; i < ndim; i++) count *= layout->shape[i];
    int contiguous = is_c_contiguous(layout, (int)ndim, itemsize);
    int wants_strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES;
    int wants_shape = (flags & PyBUF_ND) == PyBUF_ND;
    int wants_contiguous = (flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS ||
                           (flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS ||
                           (flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS;

    view->buf = (void *)(uintptr_t)address;
    view->readonly = readonly;
    view->internal = layout;
    view->suboffsets = NULL;
    if (!wants_shape && !contiguous) {
        /* A plain byte request (PyBUF_SIMPLE, as Pillow's frombuffer makes)
         * gets the rows as they lie in memory, padding included: the first
         * dimension's stride times its length. */
        view->len = layout->shape[0] * layout->strides[0];
        view->itemsize = 1;
        view->ndim = 1;
        view->format = NULL;
        view->shape = NULL;
        view->strides = NULL;
    } else {
        if (!contiguous && (!wants_strides || wants_contiguous)) {
            PyMem_Free(layout);
            PyErr_SetString(PyExc_BufferError,
                            "the rows of this pixel buffer are padded: ask for a strided buffer (PyBUF_STRIDES)");
            return -1;
        }
        view->len = count * itemsize;
        view->itemsize = itemsize;
        view->ndim = (int)ndim;
        view->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT ? layout->format : NULL;
        view->shape = wants_shape ? layout->shape : NULL;
        view->strides = wants_strides ? layout->strides : NULL;
    }
    Py_INCREF(self);
    view->obj = self;
    return 0;
}

static void exporter_releasebuffer(PyObject *self, Py_buffer *view) {
    (void)self;
    PyMem_Free(view->internal);
    view->internal = NULL;
}

static PyType_Slot exporter_slots[] = {
    {Py_bf_getbuffer, (void *)exporter_getbuffer},
    {Py_bf_releasebuffer, (void *)exporter_releasebuffer},
    {Py_tp_doc, (void *)"Base class of the package's pixel objects: exports the buffer protocol from _buffer_layout()."},
    {0, NULL},
};

static PyType_Spec exporter_spec = {
    .name = "quartzite._buffer.Exporter",
    .basicsize = 0,
    .itemsize = 0,
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .slots = exporter_slots,
};

static struct PyModuleDef buffer_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "quartzite._buffer",
    .m_doc = "The buffer protocol for quartzite's pixel buffers and frames.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__buffer(void) {
    PyObject *module = PyModule_Create(&buffer_module);
    if (module == NULL) return NULL;
    PyObject *type = PyType_FromSpec(&exporter_spec);
    if (type == NULL || PyModule_AddObject(module, "Exporter", type) < 0) {
        Py_XDECREF(type);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
