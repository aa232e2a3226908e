from google.protobuf import descriptor_pb2 as _descriptor_pb2
from google.protobuf import descriptor as _descriptor
from typing import ClassVar as _ClassVar

DESCRIPTOR: _descriptor.FileDescriptor
IDENTIFIES_FIELD_NUMBER: _ClassVar[int]
identifies: _descriptor.FieldDescriptor
EMPTY_IS_NULL_FIELD_NUMBER: _ClassVar[int]
empty_is_null: _descriptor.FieldDescriptor
UNSET_IS_EMPTY_FIELD_NUMBER: _ClassVar[int]
unset_is_empty: _descriptor.FieldDescriptor
OMIT_IF_DEFAULT_FIELD_NUMBER: _ClassVar[int]
omit_if_default: _descriptor.FieldDescriptor
NULL_FLAG_FIELD_NUMBER: _ClassVar[int]
null_flag: _descriptor.FieldDescriptor
UNWRAP_FIELD_NUMBER: _ClassVar[int]
unwrap: _descriptor.FieldDescriptor
