// TUFacts <-> JSON. Each struct of Facts.h (and the TU's status) has a
// toJSON and a fromJSON next to each other, so a field added to one is seen
// missing from the other; FactsJsonTest round-trips every field.
#include "tma/FactsJson.h"

#include "tma/Diagnostics.h"
#include "tma/Reasons.h"

#include "llvm/Support/JSON.h"

using llvm::json::Array;
using llvm::json::Object;
using llvm::json::ObjectMapper;
using llvm::json::Path;
using llvm::json::Value;

namespace tma {

// Pairs (blockers by key, tied parameters) as two-element arrays.
template <class A, class B> Value toJSON(const std::pair<A, B> &P) {
  return Array{Value(P.first), Value(P.second)};
}
template <class A, class B> bool fromJSON(const Value &V, std::pair<A, B> &P, Path Where) {
  const Array *Arr = V.getAsArray();
  if (!Arr || Arr->size() != 2) {
    Where.report("expected a pair");
    return false;
  }
  return fromJSON((*Arr)[0], P.first, Where.index(0)) &&
         fromJSON((*Arr)[1], P.second, Where.index(1));
}

Value toJSON(const SourcePoint &P) {
  return Object{{"file", P.File}, {"offset", P.Offset}, {"line", P.Line}, {"column", P.Column}};
}
bool fromJSON(const Value &V, SourcePoint &P, Path Where) {
  ObjectMapper O(V, Where);
  return O && O.map("file", P.File) && O.map("offset", P.Offset) && O.map("line", P.Line) &&
         O.map("column", P.Column);
}

Value toJSON(const TextEdit &E) {
  return Object{{"file", E.File}, {"offset", E.Offset}, {"length", E.Length}, {"text", E.Text}};
}
bool fromJSON(const Value &V, TextEdit &E, Path Where) {
  ObjectMapper O(V, Where);
  return O && O.map("file", E.File) && O.map("offset", E.Offset) && O.map("length", E.Length) &&
         O.map("text", E.Text);
}

Value toJSON(const SourceSpan &S) { return Object{{"begin", S.Begin}, {"end", S.End}}; }
bool fromJSON(const Value &V, SourceSpan &S, Path Where) {
  ObjectMapper O(V, Where);
  return O && O.map("begin", S.Begin) && O.map("end", S.End);
}

Value toJSON(const SkippedRange &S) { return Object{{"span", S.Span}, {"names", S.Names}}; }
bool fromJSON(const Value &V, SkippedRange &S, Path Where) {
  ObjectMapper O(V, Where);
  return O && O.map("span", S.Span) && O.map("names", S.Names);
}

Value toJSON(const Note &N) { return Object{{"message", N.Message}, {"where", N.Where}}; }
bool fromJSON(const Value &V, Note &N, Path Where) {
  ObjectMapper O(V, Where);
  return O && O.map("message", N.Message) && O.map("where", N.Where);
}

/// Diagnostics by their code ("tma-101"), reasons by their name: stable
/// across a reordering of either table.
static bool diagFromJSON(const Value &V, DiagID &ID, Path Where) {
  std::string Code;
  if (!fromJSON(V, Code, Where))
    return false;
  const DiagInfo *D = findDiagnostic(Code);
  if (!D) {
    Where.report("unknown diagnostic code");
    return false;
  }
  ID = D->ID;
  return true;
}
static llvm::StringRef reasonName(ReasonID R) { return reasonInfo(R).Name; }
static bool reasonFromJSON(const Value &V, ReasonID &R, Path Where) {
  std::string Name;
  if (!fromJSON(V, Name, Where))
    return false;
  for (const ReasonInfo &I : allReasons())
    if (I.Name == Name) {
      R = I.ID;
      return true;
    }
  Where.report("unknown reason");
  return false;
}

Value toJSON(const Blocker &B) {
  return Object{{"id", info(B.ID).Code}, {"message", B.Message}, {"where", B.Where},
                {"notes", B.Notes},      {"reason", reasonName(B.Reason)}};
}
/// A blocker read back: every blocker is built from a row of the reason
/// table, so it is rebuilt from its row, with the message it had.
static std::optional<Blocker> blockerFromJSON(const Value &V, Path Where) {
  ObjectMapper O(V, Where);
  const Object *Obj = V.getAsObject();
  std::string Message;
  SourcePoint At;
  std::vector<Note> Notes;
  if (!O || !O.map("message", Message) || !O.map("where", At) || !O.map("notes", Notes))
    return std::nullopt;
  const Value *ID = Obj->get("id"), *Reason = Obj->get("reason");
  if (!ID || !Reason) {
    Where.report("missing id or reason");
    return std::nullopt;
  }
  DiagID Diag;
  ReasonID R;
  if (!diagFromJSON(*ID, Diag, Where.field("id")) ||
      !reasonFromJSON(*Reason, R, Where.field("reason")))
    return std::nullopt;
  Blocker B(R, {}, At, std::move(Notes));
  B.ID = Diag;
  B.Message = std::move(Message);
  return B;
}
/// An array whose elements \p ReadOne reads (blockers have no default
/// constructor, so the library's vector reader cannot serve).
template <class T, class F>
static bool readArray(const Value &V, std::vector<T> &Out, Path Where, F ReadOne) {
  const Array *Arr = V.getAsArray();
  if (!Arr) {
    Where.report("expected an array");
    return false;
  }
  Out.clear();
  for (size_t I = 0; I < Arr->size(); ++I) {
    std::optional<T> E = ReadOne((*Arr)[I], Where.index(I));
    if (!E)
      return false;
    Out.push_back(std::move(*E));
  }
  return true;
}
bool fromJSON(const Value &V, std::vector<Blocker> &Out, Path Where) {
  return readArray(V, Out, Where, blockerFromJSON);
}
bool fromJSON(const Value &V, std::vector<std::pair<std::string, Blocker>> &Out, Path Where) {
  return readArray(V, Out, Where,
                   [](const Value &E, Path At) -> std::optional<std::pair<std::string, Blocker>> {
                     const Array *Pair = E.getAsArray();
                     std::string Key;
                     if (!Pair || Pair->size() != 2 || !fromJSON((*Pair)[0], Key, At)) {
                       At.report("expected a pair");
                       return std::nullopt;
                     }
                     std::optional<Blocker> B = blockerFromJSON((*Pair)[1], At);
                     if (!B)
                       return std::nullopt;
                     return std::pair<std::string, Blocker>(std::move(Key), std::move(*B));
                   });
}

Value toJSON(const ParamBytes &B) { return Object{{"size", B.Size}, {"align", B.Align}}; }
bool fromJSON(const Value &V, ParamBytes &B, Path Where) {
  ObjectMapper O(V, Where);
  return O && O.map("size", B.Size) && O.map("align", B.Align);
}

Value toJSON(const DescriptorArrayForm &A) {
  return Object{{"candidate", A.Candidate},
                {"edits", A.Edits},
                {"fencesRemoved", A.FencesRemoved},
                {"blockers", A.Blockers},
                {"scalarBlockers", A.ScalarBlockers},
                {"layout", A.Layout},
                {"slot", A.Slot},
                {"paramSpaceLimit", A.ParamSpaceLimit}};
}
bool fromJSON(const Value &V, DescriptorArrayForm &A, Path Where) {
  ObjectMapper O(V, Where);
  return O && O.map("candidate", A.Candidate) && O.map("edits", A.Edits) &&
         O.map("fencesRemoved", A.FencesRemoved) && O.map("blockers", A.Blockers) &&
         O.map("scalarBlockers", A.ScalarBlockers) && O.map("layout", A.Layout) &&
         O.map("slot", A.Slot) && O.map("paramSpaceLimit", A.ParamSpaceLimit);
}

Value toJSON(const DescriptorParam &D) {
  return Object{{"key", D.Key},
                {"kernelName", D.KernelName},
                {"paramName", D.ParamName},
                {"index", D.Index},
                {"where", D.Where},
                {"definitionSeen", D.DefinitionSeen},
                {"externallyVisible", D.ExternallyVisible},
                {"fromConstant", D.FromConstant},
                {"edits", D.Edits},
                {"fencesRemoved", D.FencesRemoved},
                {"blockers", D.Blockers},
                {"reliesOn", D.ReliesOn},
                {"array", D.Array}};
}
bool fromJSON(const Value &V, DescriptorParam &D, Path Where) {
  ObjectMapper O(V, Where);
  return O && O.map("key", D.Key) && O.map("kernelName", D.KernelName) &&
         O.map("paramName", D.ParamName) && O.map("index", D.Index) && O.map("where", D.Where) &&
         O.map("definitionSeen", D.DefinitionSeen) &&
         O.map("externallyVisible", D.ExternallyVisible) &&
         O.map("fromConstant", D.FromConstant) && O.map("edits", D.Edits) &&
         O.map("fencesRemoved", D.FencesRemoved) && O.map("blockers", D.Blockers) &&
         O.map("reliesOn", D.ReliesOn) && O.map("array", D.Array);
}

/// An enumeration as its position in \p Names (which lists every value).
template <class Enum, size_t N>
static bool enumFromJSON(const Value &V, Enum &E, const char *const (&Names)[N], Path Where) {
  std::string S;
  if (!fromJSON(V, S, Where))
    return false;
  for (size_t I = 0; I < N; ++I)
    if (S == Names[I]) {
      E = static_cast<Enum>(I);
      return true;
    }
  Where.report("unknown value");
  return false;
}
static const char *const HostUseKindNames[] = {"declaration", "alloc",  "copy",
                                               "free",        "launch", "other"};
static const char *const BufferKindNames[] = {"variable", "uploadHelper", "constantSymbol",
                                              "retargeted", "mirrored"};
static const char *const LaunchFormNames[] = {"byValue", "snapshot"};
bool fromJSON(const Value &V, LaunchForm &K, Path Where) {
  return enumFromJSON(V, K, LaunchFormNames, Where);
}
bool fromJSON(const Value &V, HostUseKind &K, Path Where) {
  return enumFromJSON(V, K, HostUseKindNames, Where);
}
bool fromJSON(const Value &V, BufferKind &K, Path Where) {
  return enumFromJSON(V, K, BufferKindNames, Where);
}

Value toJSON(const HostUse &U) {
  return Object{{"kind", HostUseKindNames[static_cast<unsigned>(U.Kind)]},
                {"where", U.Where},
                {"what", U.What},
                {"removal", U.Removal},
                {"paramKey", U.ParamKey},
                {"sharedWith", U.SharedWith},
                {"launcherKey", U.LauncherKey}};
}
bool fromJSON(const Value &V, HostUse &U, Path Where) {
  ObjectMapper O(V, Where);
  return O && O.map("kind", U.Kind) && O.map("where", U.Where) && O.map("what", U.What) &&
         O.map("removal", U.Removal) && O.map("paramKey", U.ParamKey) &&
         O.map("sharedWith", U.SharedWith) && O.map("launcherKey", U.LauncherKey);
}

Value toJSON(const DeviceBuffer &B) {
  return Object{{"key", B.Key},   {"name", B.Name},
                {"where", B.Where}, {"uses", B.Uses},
                {"kind", BufferKindNames[static_cast<unsigned>(B.Kind)]},
                {"storages", B.Storages},
                {"valueName", B.ValueName},
                {"valueSkipsLateCopies", B.ValueSkipsLateCopies}};
}
bool fromJSON(const Value &V, DeviceBuffer &B, Path Where) {
  ObjectMapper O(V, Where);
  return O && O.map("key", B.Key) && O.map("name", B.Name) && O.map("where", B.Where) &&
         O.map("uses", B.Uses) && O.map("kind", B.Kind) && O.map("storages", B.Storages) &&
         O.mapOptional("valueName", B.ValueName) &&
         O.mapOptional("valueSkipsLateCopies", B.ValueSkipsLateCopies);
}

Value toJSON(const LaunchSite &L) {
  return Object{{"paramKey", L.ParamKey},
                {"kernelName", L.KernelName},
                {"where", L.Where},
                {"edits", L.Edits},
                {"bufferKey", L.BufferKey},
                {"hostDescriptor", L.HostDescriptor},
                {"blockers", L.Blockers},
                {"reliesOn", L.ReliesOn},
                {"launcherKey", L.LauncherKey},
                {"unlessLaunchers", L.UnlessLaunchers},
                {"arrayCount", L.ArrayCount},
                {"form", LaunchFormNames[static_cast<unsigned>(L.Form)]}};
}
bool fromJSON(const Value &V, LaunchSite &L, Path Where) {
  ObjectMapper O(V, Where);
  return O && O.map("paramKey", L.ParamKey) && O.map("kernelName", L.KernelName) &&
         O.map("where", L.Where) && O.map("edits", L.Edits) && O.map("bufferKey", L.BufferKey) &&
         O.map("hostDescriptor", L.HostDescriptor) && O.map("blockers", L.Blockers) &&
         O.map("reliesOn", L.ReliesOn) && O.map("launcherKey", L.LauncherKey) &&
         O.map("unlessLaunchers", L.UnlessLaunchers) && O.map("arrayCount", L.ArrayCount) &&
         O.map("form", L.Form);
}

Value toJSON(const LauncherForward &F) {
  return Object{{"launcherKey", F.LauncherKey}, {"paramKey", F.ParamKey},
                {"launcherName", F.LauncherName}, {"edits", F.Edits},
                {"body", F.Body},               {"localCalls", F.LocalCalls},
                {"calledElsewhere", F.CalledElsewhere}, {"uncalled", F.Uncalled}};
}
bool fromJSON(const Value &V, LauncherForward &F, Path Where) {
  ObjectMapper O(V, Where);
  return O && O.map("launcherKey", F.LauncherKey) && O.map("paramKey", F.ParamKey) &&
         O.map("launcherName", F.LauncherName) && O.map("edits", F.Edits) &&
         O.map("body", F.Body) && O.map("localCalls", F.LocalCalls) &&
         O.map("calledElsewhere", F.CalledElsewhere) && O.map("uncalled", F.Uncalled);
}

Value toJSON(const CompilerError &E) {
  return Object{{"message", E.Message}, {"where", E.Where},      {"inMacro", E.InMacro},
                {"diagID", E.DiagID},   {"contained", E.Contained}};
}
bool fromJSON(const Value &V, CompilerError &E, Path Where) {
  ObjectMapper O(V, Where);
  return O && O.map("message", E.Message) && O.map("where", E.Where) &&
         O.map("inMacro", E.InMacro) && O.map("diagID", E.DiagID) &&
         O.map("contained", E.Contained);
}

Value toJSON(const PassFacts &P) {
  return Object{{"side", P.Side},
                {"params", P.Params},
                {"launches", P.Launches},
                {"buffers", P.Buffers},
                {"paramBlockers", P.ParamBlockers},
                {"paramSpans", P.ParamSpans},
                {"tiedParams", P.TiedParams},
                {"launchers", P.Launchers},
                {"storageVetoes", P.StorageVetoes},
                {"skipped", P.Skipped}};
}
bool fromJSON(const Value &V, PassFacts &P, Path Where) {
  ObjectMapper O(V, Where);
  return O && O.map("side", P.Side) && O.map("params", P.Params) &&
         O.map("launches", P.Launches) && O.map("buffers", P.Buffers) &&
         O.map("paramBlockers", P.ParamBlockers) && O.map("paramSpans", P.ParamSpans) &&
         O.map("tiedParams", P.TiedParams) && O.map("launchers", P.Launchers) &&
         O.map("storageVetoes", P.StorageVetoes) && O.map("skipped", P.Skipped);
}

Value toJSON(const CompileOptions &C) {
  return Object{{"cudaPath", C.CudaPath}, {"cudaVersion", C.CudaVersion},
                {"nvccMacros", C.NvccMacros}, {"gpuArch", C.GpuArch},
                {"lowestSm", C.LowestSm},     {"commandCudaVersion", C.CommandCudaVersion},
                {"extraArgs", C.ExtraArgs}};
}
bool fromJSON(const Value &V, CompileOptions &C, Path Where) {
  ObjectMapper O(V, Where);
  return O && O.map("cudaPath", C.CudaPath) && O.map("cudaVersion", C.CudaVersion) &&
         O.map("nvccMacros", C.NvccMacros) && O.map("gpuArch", C.GpuArch) &&
         O.map("lowestSm", C.LowestSm) && O.map("commandCudaVersion", C.CommandCudaVersion) &&
         O.map("extraArgs", C.ExtraArgs);
}

/// Real path -> the other paths it was opened as.
static Value aliasesToJSON(const std::map<std::string, std::set<std::string>> &Aliases) {
  Object Out;
  for (const auto &[Real, Opened] : Aliases)
    Out[Real] = std::vector<std::string>(Opened.begin(), Opened.end());
  return Out;
}
static bool aliasesFromJSON(const Value &V, std::map<std::string, std::set<std::string>> &Out,
                            Path Where) {
  std::map<std::string, std::vector<std::string>> Lists;
  if (!fromJSON(V, Lists, Where))
    return false;
  for (auto &[Real, Opened] : Lists)
    Out[Real].insert(Opened.begin(), Opened.end());
  return true;
}

Value toJSON(const TUStatus &T) {
  return Object{{"file", T.File},
                {"compile", T.Compile},
                {"notes", T.Notes},
                {"failed", T.Failed},
                {"failMessage", T.FailMessage},
                {"errors", T.Errors},
                {"mayHide", T.MayHide},
                {"deps", T.Deps},
                {"aliases", aliasesToJSON(T.Aliases)},
                {"skipped", T.Skipped},
                {"prefilterReason", T.PrefilterReason},
                {"prefilterFiles", T.PrefilterFiles}};
}
bool fromJSON(const Value &V, TUStatus &T, Path Where) {
  ObjectMapper O(V, Where);
  if (!O || !O.map("file", T.File) || !O.map("compile", T.Compile) || !O.map("notes", T.Notes) ||
      !O.map("failed", T.Failed) || !O.map("failMessage", T.FailMessage) ||
      !O.map("errors", T.Errors) || !O.map("mayHide", T.MayHide) || !O.map("deps", T.Deps) ||
      !O.map("skipped", T.Skipped) || !O.map("prefilterReason", T.PrefilterReason) ||
      !O.map("prefilterFiles", T.PrefilterFiles))
    return false;
  const Value *Aliases = V.getAsObject()->get("aliases");
  if (!Aliases) {
    Where.field("aliases").report("missing value");
    return false;
  }
  return aliasesFromJSON(*Aliases, T.Aliases, Where.field("aliases"));
}

static Value inputsToJSON(const InputFingerprint &F) {
  Object Files;
  for (const auto &[File, Hash] : F.Files)
    Files[File] = Hash;
  return Object{{"key", F.Key}, {"files", std::move(Files)}};
}
bool fromJSON(const Value &V, InputFingerprint &F, Path Where) {
  ObjectMapper O(V, Where);
  return O && O.map("key", F.Key) && O.map("files", F.Files);
}

std::string factsToJson(const TUFacts &Unit) {
  Value Doc = Object{{"format", FactsFormatName},
                     {"version", FactsFormatVersion},
                     {"inputs", inputsToJSON(Unit.Inputs)},
                     {"unit", Unit.Status},
                     {"secondRound", Unit.SecondRound},
                     {"passes", Unit.Passes}};
  return llvm::formatv("{0:2}", Doc).str() + "\n";
}

llvm::Expected<TUFacts> factsFromJson(llvm::StringRef Text) {
  llvm::Expected<Value> Doc = llvm::json::parse(Text);
  if (!Doc)
    return Doc.takeError();
  llvm::json::Path::Root Root("facts");
  std::string Format;
  unsigned Version = 0;
  ObjectMapper Head(*Doc, Root);
  if (!Head || !Head.map("format", Format) || !Head.map("version", Version) ||
      Format != FactsFormatName)
    return llvm::createStringError("not a %s document", FactsFormatName);
  if (Version != FactsFormatVersion)
    return llvm::createStringError("facts format version %u, this tool reads version %u",
                                   Version, FactsFormatVersion);
  TUFacts Unit;
  ObjectMapper O(*Doc, Root);
  if (!O.map("inputs", Unit.Inputs) || !O.map("unit", Unit.Status) ||
      !O.map("secondRound", Unit.SecondRound) || !O.map("passes", Unit.Passes))
    return Root.getError();
  return Unit;
}

} // namespace tma
