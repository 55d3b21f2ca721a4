// Reads a Yggdrasil Decision Forests model folder (what TF-Decision-Forests
// stores in a SavedModel's assets/ and TF.js's converter zips into
// assets.zip) into a flat `Forest` (forest.h):
//
//   <prefix>header.pb                     AbstractModel (task, label, inputs)
//   <prefix>data_spec.pb                  DataSpecification (columns)
//   <prefix>random_forest_header.pb       for name RANDOM_FOREST, or
//   <prefix>gradient_boosted_trees_header.pb  for GRADIENT_BOOSTED_TREES
//   <prefix>nodes-00000-of-0000N ...      tree nodes, BLOB_SEQUENCE or
//                                         TFE_RECORDIO (record_files.h)
//
// `file_prefix` is the op's attr; when it is empty and there is no
// header.pb, the folder's single "<prefix>data_spec.pb" gives the prefix (as
// YDF detects it). A path to a .zip file is an Unimplemented error asking to
// unzip it (graphrt has no zip reader).
//
// Errors (NotFound for missing files, DataLoss / InvalidArgument for bad
// contents, Unimplemented for model kinds not handled) name the file.
// Nothing is kept open. Thread-safe (no shared state).
#ifndef GRAPHRT_LOADER_YDF_MODEL_READER_H_
#define GRAPHRT_LOADER_YDF_MODEL_READER_H_

#include <string>

#include "absl/status/statusor.h"
#include "loader/ydf/forest.h"

namespace graphrt::ydf {

absl::StatusOr<Forest> LoadYdfModel(const std::string& dir,
                                    const std::string& file_prefix = "");

}  // namespace graphrt::ydf

#endif  // GRAPHRT_LOADER_YDF_MODEL_READER_H_
