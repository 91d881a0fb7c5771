// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Simple7702AccountV06
/// @notice An ERC-4337 account of EntryPoint v0.6 for an EOA that delegates its code here with EIP-7702
/// (what Alto serves for v0.6 ops with an eip7702Auth). The EOA's own key owns it: a UserOperation is valid
/// when its hash (as an EIP-191 personal message, like SimpleAccount v0.6) is signed by `address(this)`.
/// No storage, no constructor, no immutables, as Simple7702AccountV07: the same code at the same address
/// on every chain, and delegating EOAs run it with their own empty storage.
contract Simple7702AccountV06 {
    /// The canonical EntryPoint v0.6.
    address public constant entryPoint = 0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789;

    uint256 private constant SIG_VALIDATION_SUCCESS = 0;
    uint256 private constant SIG_VALIDATION_FAILED = 1;
    /// Signatures with s above half the curve order are malleable copies: refused (EIP-2).
    uint256 private constant HALF_CURVE_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    struct UserOperation {
        address sender;
        uint256 nonce;
        bytes initCode;
        bytes callData;
        uint256 callGasLimit;
        uint256 verificationGasLimit;
        uint256 preVerificationGas;
        uint256 maxFeePerGas;
        uint256 maxPriorityFeePerGas;
        bytes paymasterAndData;
        bytes signature;
    }

    error NotFromEntryPoint(address caller);
    error NotFromEntryPointOrSelf(address caller);
    error WrongArrayLengths();

    modifier onlyEntryPointOrSelf() {
        if (msg.sender != entryPoint && msg.sender != address(this)) revert NotFromEntryPointOrSelf(msg.sender);
        _;
    }

    /// Like an EOA without code: plain transfers and calls with unknown data succeed.
    receive() external payable {}

    fallback() external payable {}

    /// @notice IAccount (v0.6): checks the signature, pays the EntryPoint what it is missing of the prefund.
    /// A bad signature answers SIG_VALIDATION_FAILED (never a revert), so bundlers can estimate with a stub.
    function validateUserOp(UserOperation calldata userOp, bytes32 userOpHash, uint256 missingAccountFunds)
        external
        returns (uint256 validationData)
    {
        if (msg.sender != entryPoint) revert NotFromEntryPoint(msg.sender);
        bytes32 signed = keccak256(abi.encodePacked("\x19Ethereum Signed Message:\n32", userOpHash));
        validationData = _signedByThis(signed, userOp.signature) ? SIG_VALIDATION_SUCCESS : SIG_VALIDATION_FAILED;
        if (missingAccountFunds != 0) {
            // The EntryPoint checks the deposit it got; a failed transfer is its AA21, not ours.
            (bool paid,) = payable(msg.sender).call{value: missingAccountFunds, gas: type(uint256).max}("");
            (paid);
        }
    }

    /// @notice One call, as SimpleAccount v0.6's `execute`.
    function execute(address dest, uint256 value, bytes calldata func) external onlyEntryPointOrSelf {
        _call(dest, value, func);
    }

    /// @notice Several calls without value, as SimpleAccount v0.6's `executeBatch`.
    function executeBatch(address[] calldata dest, bytes[] calldata func) external onlyEntryPointOrSelf {
        if (dest.length != func.length) revert WrongArrayLengths();
        for (uint256 i = 0; i < dest.length; i++) {
            _call(dest[i], 0, func[i]);
        }
    }

    /// @notice ERC-1271: a hash signed (as is) by the EOA's key is its signature.
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        return _signedByThis(hash, signature) ? this.isValidSignature.selector : bytes4(0xffffffff);
    }

    function _call(address target, uint256 value, bytes calldata data) private {
        (bool success, bytes memory result) = target.call{value: value}(data);
        if (!success) {
            assembly {
                revert(add(result, 32), mload(result))
            }
        }
    }

    function _signedByThis(bytes32 hash, bytes calldata signature) private view returns (bool) {
        address signer = _recover(hash, signature);
        return signer != address(0) && signer == address(this);
    }

    /// The signer of a 65-byte (r, s, v) signature, or zero when it is malformed or malleable.
    function _recover(bytes32 hash, bytes calldata signature) private pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_CURVE_ORDER) return address(0);
        if (v < 27) v += 27;
        if (v != 27 && v != 28) return address(0);
        return ecrecover(hash, v, r, s);
    }
}
